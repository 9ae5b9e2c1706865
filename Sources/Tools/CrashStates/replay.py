"""One crash state checked: run in a mount and time namespace of its own (unshare -m -T), so that the state's
tree sits at the spool's recorded path (the records name their files by absolute path) and the farm sees a new
boot: another boot id (/proc/sys/kernel/random/boot_id bound over) and a boot that began a second ago
(CLOCK_BOOTTIME's offset). There the farm's own recovery runs as after a reboot: `farm recover` (what start and
the supervisor run first; --lease 0, as every claim's lease has run out by the time anyone looks), then a
watcher until it has rechecked the finished jobs and marked the new boot (control/synced), `farm stop` (its
sweep), then `farm fsck`; before all of it, `farm status` (the lists shown before any recovery).
Prints one JSON document: what each said, and what the spool then holds.

    python3 replay.py FARM TREE SPOOL BOOTFILE SIGNATURE_LISTS LIMIT WRITTEN
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


def main():
    farm, tree, spool, bootfile, signature_lists, limit = sys.argv[1:7]
    written = float(sys.argv[7])
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
