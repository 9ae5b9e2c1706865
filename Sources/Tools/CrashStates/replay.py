"""One crash state checked: run in a mount and time namespace of its own (unshare -m -T), so that the state's
tree sits at the spool's recorded path (the records name their files by absolute path) and the farm sees a new
boot: another boot id (/proc/sys/kernel/random/boot_id bound over) and a boot that began a second ago
(CLOCK_BOOTTIME's offset). There the farm's own recovery runs as after a reboot: `farm recover` (what start and
the supervisor run first; --lease 0, as every claim's lease has run out by the time anyone looks), then a
watcher until it has rechecked the finished jobs and marked the new boot (control/synced), `farm stop` (its
sweep), then `farm fsck`; before all of it, `farm status` (the lists shown before any recovery).
Prints one JSON document: what each said, and what the spool then holds.

With FINISH "1", a worker then lets the farm finish its lists (`farm work --exit-when-idle`) before the stop:
what a WARC list's promise is about. The WARC files in WARC_FOLDER (if any) are read last: each gzip member
whole, each record's block as long as it says, the response records of each URL counted.

With CONVERT "1", a watcher then runs until every list with `--convert-links` has its mark of converted links,
and the files delivered to MIRROR are read (their sha256).

    python3 replay.py FARM TREE SPOOL BOOTFILE SIGNATURE_LISTS LIMIT WRITTEN [WARC_FOLDER FINISH MIRROR CONVERT]
"""
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import time

JOB = re.compile(r"^[0-9a-f]{16}\.\d+$")


TIMES = {}


def run(farm, *args, timeout=60):
    started = time.monotonic()
    r = subprocess.run([farm, *args], capture_output=True, text=True, timeout=timeout)
    TIMES[args[0]] = TIMES.get(args[0], 0) + time.monotonic() - started
    return r.returncode, r.stdout, r.stderr


def jobs(spool):
    """Every job name in every state, straight from the folders: a job must be in exactly one."""
    places = {}
    for path in glob.glob(spool + "/queue/**/*", recursive=True):
        base = os.path.basename(path)
        if os.path.isfile(path) and JOB.match(base):
            places.setdefault(base, []).append("queue")
    for base in os.listdir(spool + "/active") if os.path.isdir(spool + "/active") else []:
        if os.path.isdir(f"{spool}/active/{base}"):
            # A claimed pack, `<pack>@<owner>/`: each job in it is claimed.
            for job in os.listdir(f"{spool}/active/{base}"):
                places.setdefault(job, []).append("active")
        else:
            places.setdefault(base.split("@")[0], []).append("active")
    for state in ("done", "failed"):
        for path in glob.glob(f"{spool}/{state}/*/*"):
            places.setdefault(os.path.basename(path), []).append(state)
    return places


def done_outputs(spool):
    """Each done job's outcome record (its file and size) and the URL its job file names."""
    out = {}
    for path in glob.glob(f"{spool}/done/*/*"):
        job = os.path.basename(path)
        try:
            record = json.loads(os.getxattr(path, "user.farm.outcome"))
        except OSError:
            record = None
        try:
            with open(path) as f:
                line = f.readline()
            if not line:
                # An add's job file is empty, and an item add's: its record is line <index> of its list's table.
                table, index = job.rsplit(".", 1)
                with open(f"{spool}/lists/{table}.resources") as f:
                    line = f.readlines()[int(index)]
            link = json.loads(line).get("url")
        except (OSError, ValueError, IndexError):
            link = None
        entry = {"url": link, "file": None, "sha": None, "size": None}
        for what in ("image", "thumb"):
            if record and record.get(what):
                entry[what] = output(record[what])
        if record and record.get("file"):
            entry["file"] = record["file"]
            try:
                with open(record["file"], "rb") as f:
                    data = f.read()
                entry["sha"], entry["size"] = hashlib.sha256(data).hexdigest(), len(data)
            except OSError as error:
                entry["sha"] = f"unreadable: {error.strerror}"
        elif record is None:
            entry["file"] = "no outcome record"
        out[job] = entry
    return out


def output(path):
    """A display image's or thumbnail's path, sha256 and size (or why it cannot be read)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        return {"path": path, "sha": hashlib.sha256(data).hexdigest(), "size": len(data)}
    except OSError as error:
        return {"path": path, "sha": None, "size": None, "error": f"unreadable: {error.strerror}"}


def warc_files(folder):
    """The WARC files of `folder`: which are still `.open`, what is torn (a gzip member cut short, a record
    whose block is not as long as its Content-Length), and how many response records each URL has."""
    import zlib
    if not os.path.isdir(folder):
        return None
    out = {"open": [], "torn": [], "responses": {}}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".open"):
            out["open"].append(name)
        if not (name.endswith(".warc.gz") or name.endswith(".warc.gz.open")):
            continue
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        at, number = 0, 0
        while at < len(data):
            d = zlib.decompressobj(31)
            try:
                record = d.decompress(data[at:])
            except zlib.error as error:
                out["torn"].append(f"{name}: member {number} at byte {at} unreadable ({error})")
                break
            if not d.eof:
                out["torn"].append(f"{name}: member {number} at byte {at} cut short")
                break
            at = len(data) - len(d.unused_data)
            number += 1
            head, sep, block = record.partition(b"\r\n\r\n")
            fields = {}
            for line in head.split(b"\r\n")[1:]:
                key, _, value = line.partition(b":")
                fields[key.strip().lower()] = value.strip().decode(errors="replace")
            length = int(fields.get(b"content-length", -1))
            if not sep or not record.startswith(b"WARC/") or len(block) != length + 4 or not block.endswith(b"\r\n\r\n"):
                out["torn"].append(f"{name}: record {number - 1} at byte {at} is not whole")
            if fields.get(b"warc-type") == "response":
                uri = fields.get(b"warc-target-uri", "").strip("<>")
                out["responses"][uri] = out["responses"].get(uri, 0) + 1
    return out


def converting_lists(spool):
    """The lists whose record asks for `--convert-links` (`"convertLinks":true` in one of their files)."""
    ids = set()
    for path in glob.glob(spool + "/lists/*"):
        base = os.path.basename(path)
        if re.match(r"^[0-9a-f]{16}\.", base) and not base.endswith(".converted"):
            try:
                with open(path, "rb") as f:
                    if b'"convertLinks":true' in f.read(1 << 20):
                        ids.add(base[:16])
            except OSError:
                pass
    return ids


def converted(spool):
    return all(os.path.exists(f"{spool}/lists/{list_id}.converted") for list_id in converting_lists(spool))


def tree_shas(folder):
    """Every file under `folder` by its path in it: its sha256."""
    out = {}
    for base, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(base, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, folder)] = hashlib.sha256(f.read()).hexdigest()
    return out


def main():
    farm, tree, spool, bootfile, signature_lists, limit = sys.argv[1:7]
    written = float(sys.argv[7])
    warc_folder = sys.argv[8] if len(sys.argv) > 8 else ""
    finish = len(sys.argv) > 9 and sys.argv[9] == "1"
    mirror = sys.argv[10] if len(sys.argv) > 10 else ""
    convert = len(sys.argv) > 11 and sys.argv[11] == "1"
    subprocess.run(["mount", "--bind", tree, spool], check=True)
    subprocess.run(["mount", "--bind", bootfile, "/proc/sys/kernel/random/boot_id"], check=True)
    with open(bootfile) as f:
        boot = f.read().strip()
    os.environ["FARM_SPOOL"] = spool
    result = {}
    # What the farm shows before anything recovers (`farm status`, `farm item`, `farm export` recover nothing):
    # an acknowledged add's list is there already, not only once a farm process has published it again.
    rc, out, _ = run(farm, "status", "--json")
    result["lists_before"] = sorted(l["name"] for l in json.loads(out)["lists"]) if rc == 0 else None
    rc, out, err = run(farm, "recover", "--lease", "0")
    result["recover"] = [rc, (out + err).strip()[-600:]]
    started = time.monotonic()
    watcher = subprocess.Popen([farm, "watch"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    marked = False
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with open(spool + "/control/synced") as f:
                if f.read().split()[:1] == [boot]:
                    marked = True
                    break
        except OSError:
            pass
        if watcher.poll() is not None:
            break
        time.sleep(0.01)
    TIMES["watch-mark"] = time.monotonic() - started
    if watcher.poll() is None:
        watcher.terminate()
    try:
        _, werr = watcher.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        watcher.kill()
        _, werr = watcher.communicate()
    TIMES["watch"] = time.monotonic() - started
    result["watch"] = [marked, watcher.returncode, (werr or "").strip()[-600:]]
    if finish:
        # The jobs as recovered, which the checks of §17 judge (finishing a recursive list adds jobs).
        result["jobs_recovered"] = jobs(spool)
        # The farm lets its lists finish (the jobs the recovery handed back or the recheck redoes).
        rc, out, err = run(farm, "work", "--exit-when-idle", "--lease", "2", timeout=120)
        result["work"] = [rc, (out + err).strip()[-600:]]
    if convert:
        # The next watcher converts a finished list whose mark is missing (FarmWatcher's LinkConverter).
        watcher = subprocess.Popen([farm, "watch"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not converted(spool) and watcher.poll() is None:
            time.sleep(0.02)
        result["converted"] = converted(spool)
        if watcher.poll() is None:
            watcher.terminate()
        try:
            watcher.wait(timeout=30)
        except subprocess.TimeoutExpired:
            watcher.kill()
            watcher.wait()
    # The state's files were written a moment ago, where after a reboot they are seconds old at least: what
    # stop sweeps by age (a staged registration, say: tmpAge, 2 s) it judges as it would then.
    time.sleep(max(0.0, written + 2.2 - time.time()))
    # What `farm stop` does once every process is gone (its sweep of what dead writers left), as after
    # powercut's recovery: the farm is judged stopped, as fsck judges it best.
    rc, out, err = run(farm, "stop")
    result["stop"] = [rc, (out + err).strip()[-600:]]
    rc, out, err = run(farm, "fsck", "--json")
    try:
        result["fsck"] = [rc, json.loads(out)]
    except ValueError:
        result["fsck"] = [rc, {"clean": False, "findings": [(out + err).strip()[-600:]]}]
    result["jobs"] = jobs(spool)
    result["done"] = done_outputs(spool)
    result["signature"] = signature(farm, signature_lists, limit)
    result["warc"] = warc_files(warc_folder) if warc_folder else None
    # Only where the list is (an add the crash undid delivered nothing), without the probe of an add killed
    # before it removed it (Control.delivery's `.farm-probe-<pid>`: a name of the user's folder, not a delivery).
    result["mirror"] = ({rel: sha for rel, sha in tree_shas(mirror).items()
                         if not os.path.basename(rel).startswith(".farm-probe-")}
                        if convert and mirror and converting_lists(spool) else None)
    result["times"] = TIMES
    print(json.dumps(result))


def signature(farm, signature_lists, limit):
    """What the farm shows of what commands acknowledge: its lists, the items of `signature_lists` in order,
    the desired workers, paused, and (`limit` "1") the bandwidth cap."""
    signature = {}
    rc, out, _ = run(farm, "status", "--json")
    if rc == 0:
        whole = json.loads(out)
        signature["lists"] = sorted(l["name"] for l in whole["lists"])
        signature["workers"] = whole["workers"]["desired"]
        signature["paused"] = whole["paused"]
        for name in filter(None, signature_lists.split(",")):
            if name in signature["lists"]:
                rc, out, _ = run(farm, "status", name, "--json")
                if rc == 0:
                    resources = sorted(json.loads(out)["resources"], key=lambda r: r["index"])
                    signature[name] = [r["url"] for r in resources]
        if limit == "1":
            rc, out, _ = run(farm, "limit")
            signature["limit"] = out.strip()
    else:
        signature["status"] = f"exit {rc}"
    return signature


if __name__ == "__main__":
    main()
