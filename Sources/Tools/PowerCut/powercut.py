#!/usr/bin/env python3
"""Power cuts under farm (SPEC §17), for bin/powercut.

The host side boots a guest (virtme-ng over qemu, software emulation) whose farm spool, and the manifests it
reads, live on an ext4 disk image of their own; the guest runs a local origin and a workload of farm
commands (one list's large file fetched in pieces over three connections), printing `PC ACK` for each
command as soon as it exits 0. The host writes each such line to its
ledger at once (outside the guest: the point is to see them survive on the guest's disk), and SIGKILLs qemu
at a seeded random instant: a power cut. It then checks the image with e2fsck (after replaying its journal,
as a mount would) and boots again on it: the guest checks, before anything else runs, that every
acknowledged command is still there (lists, items, order, desired workers, paused), that every job is in
exactly one state, counted once, then runs the farm's own recovery (farm start, until the watcher has
rechecked what finished before the cut), then that every done resource has the origin's bytes (sha256),
then farm fsck on the stopped farm, and goes on with the workload from where it was. After the last cut, the
last boot finishes every list and checks every byte. The origin's log of the bytes it served, streamed to
the host like the acknowledgements, gives the bytes fetched again after each cut, judged against the workload's
download rate: its bytes over the seconds it was downloading (the origin sending at least one response).
Before and after the farm's recovery the guest prints what it holds of downloads in progress (`PC STATE`:
each partial's size and bytes before its first hole, each board's pieces), which says where a redo came from.

The same file runs in the guest (`--guest RUN_DIRECTORY`): one program, so the model of what each command
does (`apply`) is the same on both sides.
"""
import argparse
import glob
import hashlib
import http.server
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import threading
import time

# The origin's handler, shared with bin/crashstates; the guest runs this file from the host's tree, so the folder is
# there too.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "RangeOrigin"))
from range_origin import RangeOrigin  # noqa: E402

PORT = 8731
MOUNT = "/tmp/powercut-disk"
# What udev would load for qemu's q35 machine and this CPU, none of which the guest uses: under emulation
# each module costs a second or more of the boot (kvm alone sixteen). The disk is virtio-blk, the root 9p.
UNUSED_MODULES = [
    "kvm", "kvm_amd", "kvm_intel", "irqbypass", "pcspkr", "powernow_k8", "libata", "ahci", "libahci", "sr_mod",
    "cdrom", "sg", "iTCO_wdt", "iTCO_vendor_support", "intel_pmc_bxt", "i6300esb", "i2c_i801", "i2c_smbus",
    "psmouse", "serio_raw", "evdev", "lpc_ich", "button", "crc32_pclmul", "crct10dif_pclmul",
    "ghash_clmulni_intel", "sha512_ssse3", "sha256_ssse3", "sha1_ssse3", "aesni_intel", "crypto_simd", "cryptd",
    "qemu_fw_cfg", "drm", "bochs", "floppy", "parport_pc", "joydev", "intel_rapl_msr", "intel_rapl_common",
]


def say(*parts):
    print("powercut:", *parts, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the corpus and the model (both sides)

def corpus(seed):
    """The origin's files: name -> size. Small files, a few of a few MB (emulation is slow) and a pool of
    medium ones: enough that the adds and syncs of a long run (about 2 new files in 7 steps, half of them
    medium while there are) never run out of files no list used, so that its lists keep their length and
    its farm keeps downloading, and cuts land under transfers all through the run."""
    rng = random.Random(f"corpus-{seed}")
    files = {}
    for n in range(300):
        files[f"s{n:03d}.bin"] = rng.randint(2_000, 60_000)
    for n in range(4):
        files[f"m{n}.bin"] = rng.randint(1_500_000, 3_000_000)
    for n in range(40):
        files[f"r{n:02d}.bin"] = rng.randint(200_000, 800_000)
    return files


def file_bytes(seed, name, size):
    rng = random.Random(f"bytes-{seed}-{name}")
    return rng.randbytes(size)


def initial_lists(seed):
    """Three lists of items (id, file); the files left out are the pool `item add` and `sync` draw from."""
    names = sorted(n for n in corpus(seed) if n.startswith("s"))
    rng = random.Random(f"lists-{seed}")
    rng.shuffle(names)
    lists = {"A.json": names[0:9] + ["m0.bin"], "B.json": names[9:17] + ["m1.bin"], "C.json": names[17:24] + ["m2.bin", names[0]]}
    for key in lists:
        lists[key] = [n for n in lists[key] if n.startswith("s") or n in ("m0.bin", "m1.bin", "m2.bin")]
    model = {"lists": {}, "workers": 2, "paused": False, "serial": 0}
    for name, files in lists.items():
        model["lists"][name] = [[f"{ord(name[0]):02x}{i:06x}-0000-4000-8000-000000000000", f]
                                for i, f in enumerate(files)]
    return model


def pool(seed, model):
    # Files never used in any list: a file fetched again is a redo, never a new item's first download.
    used = {f for items in model["lists"].values() for _, f in items} | set(model.get("used", []))
    return [n for n in sorted(corpus(seed)) if n not in used and not n.startswith("m")]


def new_file(rng, free):
    """A file for a new item: a medium one half the time while any is left, else a small one."""
    medium = [n for n in free if n.startswith("r")]
    small = [n for n in free if not n.startswith("r")]
    return rng.choice(medium if medium and (rng.random() < 0.5 or not small) else small)


def steps(cuts):
    """The workload's length: enough commands that each boot of a long run still has some to cut under."""
    return max(60, 6 * cuts)


def command(seed, step, model, last):
    """The workload's command at `step` given the model it starts from: (kind, arguments), deterministic.
    The first steps add the lists; the rest edit, sync, scale, pause and resume at random."""
    if step < 3:
        return ("add", {"list": sorted(model_lists_to_add())[step]})
    if step >= last:
        return None
    rng = random.Random(f"step-{seed}-{step}")
    if step == 3:  # the desired state changed early, so that every cut has one to keep
        return ("scale", {"workers": rng.choice([1, 3])})
    lists = sorted(model["lists"])
    name = rng.choice(lists)
    items = model["lists"][name]
    kinds = ["item-add", "item-rm", "item-move", "sync", "scale", "pause" if not model["paused"] else "resume",
             "wait"]
    kind = rng.choice(kinds)
    free = pool(seed, model)
    if kind == "item-add" and free:
        return ("item-add", {"list": name, "file": new_file(rng, free),
                             "at": rng.randint(0, len(items))})
    if kind == "item-rm" and len(items) > 2:
        return ("item-rm", {"list": name, "id": rng.choice(items)[0]})
    if kind == "item-move" and len(items) > 1:
        return ("item-move", {"list": name, "id": rng.choice(items)[0], "at": rng.randint(0, len(items) - 1)})
    if kind == "sync":
        # The source rewritten on the guest's disk: the list as it is, less one item, plus one at the end,
        # every item with its id (a source without ids is matched by URL, and a list may name a URL twice).
        source = [list(item) for item in items]
        if len(source) > 2:
            source.pop(rng.randrange(len(source)))
        if free:
            source.append([f"{ord(name[0]):02x}{step:06x}-5000-4000-8000-000000000000", new_file(rng, free)])
        return ("sync", {"list": name, "source": source})
    if kind == "scale":
        return ("scale", {"workers": rng.randint(1, 3)})
    if kind in ("pause", "resume"):
        return (kind, {})
    return ("wait", {"seconds": rng.choice([1, 2, 3])})


def model_lists_to_add():
    return ["A.json", "B.json", "C.json"]


def apply(seed, model, cmd, printed_id=None):
    """The model after `cmd` exited 0. `printed_id`: the id `item add` printed."""
    model = json.loads(json.dumps(model))
    kind, a = cmd
    if kind == "add":
        model.setdefault("added", []).append(a["list"])
    elif kind == "item-add":
        model["serial"] += 1
        model["lists"][a["list"]].insert(a["at"], [printed_id, a["file"]])
        model.setdefault("used", []).append(a["file"])
    elif kind == "item-rm":
        model["lists"][a["list"]] = [i for i in model["lists"][a["list"]] if i[0] != a["id"]]
    elif kind == "item-move":
        items = model["lists"][a["list"]]
        item = next(i for i in items if i[0] == a["id"])
        items.remove(item)
        items.insert(a["at"], item)
    elif kind == "sync":
        model["serial"] += 1
        ids = printed_id if isinstance(printed_id, list) and len(printed_id) == len(a["source"]) else None
        model["lists"][a["list"]] = [[ids[n] if ids else i, f] for n, (i, f) in enumerate(a["source"])]
        model.setdefault("used", []).extend(f for _, f in a["source"])
    elif kind == "scale":
        model["workers"] = a["workers"]
    elif kind == "pause":
        model["paused"] = True
    elif kind == "resume":
        model["paused"] = False
    model["step"] = model.get("step", 0) + 1
    return model


def visible(model):
    """What the spool must show of a model: each added list's (file) order, desired workers, paused. Ids of
    items a sync added are the farm's (not known before), so lists compare by file, then by id where known.
    The desired workers are nobody's to keep until a command set them: the first `farm start` (after the
    adds) is not in the ledger, so until the scale of step 3 is acknowledged they are not compared (None)."""
    return {"lists": {n: [f for _, f in model["lists"][n]] for n in model.get("added", [])},
            "workers": model["workers"] if model.get("step", 0) > 3 else None, "paused": model["paused"]}


# ---------------------------------------------------------------- the guest

class Origin(RangeOrigin):
    """The local origin: the corpus, with ETags (304 on If-None-Match), ranges and a rate limit, so that cuts land
    mid-download. Every byte sent is reported (`PC SERVED name start end`) for the redo figures."""
    answers_not_modified = True
    rate = 400_000  # bytes a second per response
    # Seconds of this boot during which at least one response was sending: the workload's time downloading,
    # which its download rate (the yardstick of the bytes fetched again) is measured over.
    busy = 0.0
    busy_since = None
    sending = 0
    lock = threading.Lock()

    @classmethod
    def busy_seconds(cls):
        with cls.lock:
            return cls.busy + (time.monotonic() - cls.busy_since if cls.busy_since is not None else 0)

    @classmethod
    def sends(cls, delta):
        with cls.lock:
            if delta > 0 and cls.sending == 0:
                cls.busy_since = time.monotonic()
            cls.sending += delta
            if delta < 0 and cls.sending == 0:
                cls.busy += time.monotonic() - cls.busy_since
                cls.busy_since = None

    def send_body(self, name, data, start, end):
        at = start
        chunk = 32_768
        Origin.sends(1)
        try:
            while at < end:
                piece = data[at:min(end, at + chunk)]
                self.wfile.write(piece)
                emit(f"PC SERVED {name} {at} {at + len(piece)} {Origin.busy_seconds():.3f}")
                at += len(piece)
                time.sleep(len(piece) / self.rate)
        except OSError:
            pass
        finally:
            Origin.sends(-1)


_out = threading.Lock()


def emit(line):
    with _out:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def sh(args, check=True, timeout=300, env=None):
    result = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} exited {result.returncode}: {result.stderr.strip()[:400]}")
    return result


class Guest:
    def __init__(self, run):
        self.run = run
        with open(os.path.join(run, "plan.json")) as f:
            self.plan = json.load(f)
        self.seed = self.plan["seed"]
        self.farm = self.plan["farm"]
        self.spool = MOUNT + "/spool"
        self.sources = MOUNT + "/sources"
        self.env = dict(os.environ, FARM_SPOOL=self.spool, HOME=MOUNT, XDG_STATE_HOME=MOUNT + "/state")

    def f(self, *args, check=True, timeout=300):
        return sh([self.farm, *args], check=check, timeout=timeout, env=self.env)

    def main(self):
        subprocess.run(["ip", "link", "set", "lo", "up"], capture_output=True)
        os.makedirs(MOUNT, exist_ok=True)
        sh(["mount", "-t", "ext4", "/dev/vda", MOUNT])
        files = {name: file_bytes(self.seed, name, size) for name, size in corpus(self.seed).items()}
        Origin.files = files
        self.sha = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
        server = http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Origin)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        emit(f"PC BOOTED {self.plan['boot']} {open('/proc/sys/kernel/random/boot_id').read().strip()}")
        model = self.plan["model"]
        if self.plan["boot"] > 0:
            model = self.check(self.plan["candidates"])
        os.makedirs(self.sources, exist_ok=True)
        emit(f"PC READY {Origin.busy_seconds():.3f}")
        if model.get("step", 0) >= 3 and not self.running():
            self.f("start", "--workers", str(model["workers"]))
        step = model.get("step", 0)
        while True:
            cmd = command(self.seed, step, model, self.plan.get("steps", steps(0)))
            if cmd is None:
                break
            emit("PC BEGIN " + json.dumps([step, cmd]))
            printed = self.execute(cmd, model)
            emit("PC ACK " + json.dumps([step, cmd, printed]))
            if self.plan.get("hold_after") == cmd[0]:
                time.sleep(3600)  # the chosen cut: nothing else runs (no other fsync) until it comes
            model = apply(self.seed, model, cmd, printed)
            step += 1
            if step == 3:
                self.f("start", "--workers", str(model["workers"]))
        if self.plan["final"]:
            self.finish(model)
        else:
            emit("PC IDLE")
            time.sleep(3600)

    def running(self):
        out = self.f("ps", "--json", check=False)
        try:
            return any(p.get("role") == "supervisor" for p in json.loads(out.stdout or "[]"))
        except ValueError:
            return False

    def url(self, name):
        return f"http://127.0.0.1:{PORT}/{name}"

    def write_source(self, name, items):
        """A manifest on the guest's disk, written whole and fsynced before farm reads it."""
        path = os.path.join(self.sources, name)
        temporary = path + ".new"
        with open(temporary, "w") as out:
            json.dump({"items": [{"uuid": i, "imageUrlString": self.url(f)} if i else {"imageUrlString": self.url(f)}
                                 for i, f in items]}, out)
            out.flush()
            os.fsync(out.fileno())
        os.rename(temporary, path)
        fd = os.open(self.sources, os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)
        return path

    def execute(self, cmd, model):
        kind, a = cmd
        if kind == "add":
            items = initial_lists(self.seed)["lists"][a["list"]]
            # C's large file comes in pieces (SPEC §14): their records and the partial's bytes must agree after a cut.
            pieces = ["--connections", "3", "--min-piece", "256K"] if a["list"] == "C.json" else []
            self.f("add", self.write_source(a["list"], items), "--accept", "any", *pieces)
        elif kind == "item-add":
            out = self.f("item", "add", a["list"], self.url(a["file"]), "--at", str(a["at"]))
            return out.stdout.strip()
        elif kind == "item-rm":
            self.f("item", "rm", a["list"], a["id"])
        elif kind == "item-move":
            self.f("item", "move", a["list"], a["id"], str(a["at"]))
        elif kind == "sync":
            self.write_source(a["list"], a["source"])
            self.f("sync", a["list"])
            # The ids the farm gave the items new in the source.
            resources = json.loads(self.f("status", a["list"], "--json").stdout)["resources"]
            return [r["id"] for r in sorted(resources, key=lambda r: r["index"])]
        elif kind == "scale":
            self.f("scale", str(a["workers"]))
        elif kind in ("pause", "resume"):
            self.f(kind)
        elif kind == "wait":
            time.sleep(a["seconds"])
        return None

    # ---- checks after a cut

    def observe(self):
        """The spool as farm shows it, read before anything else runs: lists, items in order, desired state.
        A cut in the first add, before its spool was made, leaves none: nothing was acknowledged, and the
        model's first candidate is the empty one."""
        if not os.path.exists(self.spool):
            return {"lists": {}, "workers": None, "paused": False, "ids": {}, "resources": {}}
        whole = json.loads(self.f("status", "--json").stdout)
        seen = {"lists": {}, "workers": whole["workers"]["desired"], "paused": whole["paused"], "ids": {},
                "resources": {}}
        for entry in whole["lists"]:
            one = json.loads(self.f("status", entry["name"], "--json").stdout)
            resources = sorted(one["resources"], key=lambda r: r["index"])
            seen["lists"][entry["name"]] = [r["url"].rsplit("/", 1)[1] for r in resources]
            seen["ids"][entry["name"]] = [r["id"] for r in resources]
            seen["resources"][entry["name"]] = resources
        return seen

    @staticmethod
    def between(shown, before, after):
        """The one list the spool shows half-way from `before` to `after` (an in-flight sync's edits, each
        committed on its own), everything else being as both say; None when it is not so."""
        from collections import Counter
        lists = [n for n in after["lists"] if shown["lists"].get(n) != after["lists"][n]
                 and shown["lists"].get(n) != before["lists"].get(n)]
        if len(lists) != 1:
            return None
        name = lists[0]
        for key in ("paused", "workers"):
            if after[key] is not None and shown[key] != after[key]:
                return None
        for other in after["lists"]:
            if other != name and shown["lists"].get(other) != after["lists"][other]:
                return None
        got, old, new = Counter(shown["lists"][name]), Counter(before["lists"].get(name, [])), Counter(after["lists"][name])
        if not (old & new) <= got or not got <= (old | new):
            return None
        common = old & new

        def kept(files):  # the items both ends hold, in the order `files` has them
            left = Counter(common)
            out = []
            for f in files:
                if left[f] > 0:
                    left[f] -= 1
                    out.append(f)
            return out
        if kept(shown["lists"][name]) not in (kept(before["lists"].get(name, [])), kept(after["lists"][name])):
            return None
        return name

    @staticmethod
    def jobs_per_list(places):
        """How many jobs each list has in the spool (`jobs()`), as sorted counts."""
        jobs_by_list = {}
        for job in places:
            jobs_by_list.setdefault(job.split(".")[0], set()).add(job)
        return sorted(len(v) for v in jobs_by_list.values())

    @staticmethod
    def items_per_list(model):
        """How many items each list of `model` has, as sorted counts."""
        return sorted(len(model["lists"][n]) for n in model.get("added", []))

    def jobs(self):
        """Every job name in every state, straight from the spool's folders: each must be in exactly one."""
        places = {}
        for path in glob.glob(self.spool + "/queue/**/*", recursive=True):
            base = os.path.basename(path)
            if os.path.isfile(path) and re.fullmatch(r"[0-9a-f]{16}\.\d+", base):
                places.setdefault(base, []).append("queue")
        for base in os.listdir(self.spool + "/active") if os.path.isdir(self.spool + "/active") else []:
            places.setdefault(base.split("@")[0], []).append("active")
        for state in ("done", "failed"):
            for path in glob.glob(f"{self.spool}/{state}/*/*"):
                places.setdefault(os.path.basename(path), []).append(state)
        return places

    def match(self, seen, candidates, findings):
        """Which candidate model the spool shows (`seen`): the index, the model with the ids the farm gave, and
        the list a sync cut half-way left between the two (or None). What matches neither is a finding."""
        shown = {"lists": seen["lists"], "workers": seen["workers"], "paused": seen["paused"]}
        matched = None
        for index, candidate in enumerate(candidates):
            want = visible(candidate)
            if want == dict(shown, workers=shown["workers"] if want["workers"] is not None else None):
                matched = index
                break
        between = None
        if matched is None and len(candidates) == 2:
            between = self.between(shown, visible(candidates[0]), visible(candidates[1]))
        if matched is None and between is not None:
            # A sync cut half-way (its edits are each atomic, and a sync run again ends where one
            # uninterrupted would have): the list as the spool shows it, its ids the spool's.
            matched = 0
            candidates = [json.loads(json.dumps(candidates[0]))]
            candidates[0]["lists"][between] = [list(item) for item in zip(seen["ids"][between], seen["lists"][between])]
        if matched is None:
            findings.append("undone: the spool shows " + json.dumps(shown) + "; acknowledged: "
                            + json.dumps(visible(candidates[0]))
                            + (" or " + json.dumps(visible(candidates[1])) if len(candidates) > 1 else ""))
            matched = 0
        model = json.loads(json.dumps(candidates[matched]))
        # The ids the farm gave to items added by a sync, as the spool shows them now.
        for name in model.get("added", []):
            ids = seen["ids"].get(name, [])
            if len(ids) == len(model["lists"][name]):
                for item, real in zip(model["lists"][name], ids):
                    if item[0] is None:  # added by a sync, or by an item add cut before it printed its id
                        item[0] = real
                    elif item[0] != real:
                        findings.append(f"id: {name} shows {real} where {item[0]} was acknowledged")
        return matched, model, between

    def check(self, candidates):
        findings = []
        seen = self.observe()
        matched, model, between = self.match(seen, candidates, findings)
        # The farm's own recovery: start, until the watcher has rechecked what finished before the cut.
        emit("PC STATE before " + json.dumps(self.partials()))
        started = time.time()
        self.f("start", "--workers", str(model["workers"]), timeout=600)
        boot = open("/proc/sys/kernel/random/boot_id").read().strip()
        while True:
            try:
                mark = open(self.spool + "/control/synced").read().split()
            except OSError:
                mark = []
            if mark and mark[0] == boot:
                break
            if time.time() - started > 240:
                findings.append("recovery: the watcher did not recheck the finished jobs within 240 s")
                break
            time.sleep(0.5)
        emit("PC STATE after " + json.dumps(self.partials()))
        redone = sum(1 for line in self.log_lines() if "redo" in line.lower() or "again" in line.lower())
        findings += self.check_bytes()
        self.f("stop", timeout=600)
        # Jobs are counted once the farm's own recovery has run (SPEC §17) and the farm has stopped: an
        # edit cut after its commit leaves its journal, which the recovery finishes (a removed item's job
        # may be back until then), and a running farm moves jobs between the folders while they are read.
        places = self.jobs()
        if matched == 0 and between is None and len(candidates) == 2 and self.jobs_per_list(places) != self.items_per_list(model):
            # An add cut between its batch's commit and the publishing of its lists shows the list only once
            # the farm's own recovery has published it (SPEC §17 promises the state after that recovery):
            # the spool as farm shows it now is matched again.
            later = []
            again, model_again, _ = self.match(self.observe(), candidates, later)
            if again == 1 and not later:
                matched, model = again, model_again
        doubled = {job: where for job, where in places.items() if len(where) > 1}
        for job, where in sorted(doubled.items()):
            findings.append(f"doubled: {job} in {' and '.join(where)}")
        totals, expected = self.jobs_per_list(places), self.items_per_list(model)
        if totals != expected:
            findings.append(f"lost or extra jobs: jobs per list {totals}, items per list {expected}")
        fsck = self.f("fsck", check=False, timeout=600)
        if fsck.returncode != 0:
            findings.append("fsck: " + (fsck.stdout + fsck.stderr).strip().replace("\n", " | ")[:2000])
        emit("PC CHECK " + json.dumps({"matched": matched, "half_way": between, "findings": findings,
                                      "recovery_log": redone,
                                      "jobs": len(places)}))
        emit("PC MODEL " + json.dumps(model))
        return model

    def partials(self):
        """What the spool holds of downloads in progress: each partial's size and the bytes before its first
        hole, each board's pieces with their records' sizes, and the claims (the redo figures' why)."""
        def data_end(path):
            try:
                fd = os.open(path, os.O_RDONLY)
                try:
                    return os.lseek(fd, 0, os.SEEK_HOLE)
                finally:
                    os.close(fd)
            except OSError:
                return None
        state = {"partial": {}, "pieces": {}, "active": sorted(os.listdir(self.spool + "/active"))
                 if os.path.isdir(self.spool + "/active") else []}
        # Read while the farm may run (the state after recovery): a file listed may be gone when looked at.
        def lstat(path):
            try:
                return os.lstat(path)
            except FileNotFoundError:
                return None
        for path in glob.glob(self.spool + "/partial/*"):
            st = lstat(path)
            if st:
                state["partial"][os.path.basename(path)] = [st.st_size, data_end(path), st.st_nlink]
        for board in glob.glob(self.spool + "/pieces/*"):
            pieces = {os.path.relpath(p, board): lstat(p) for p in glob.glob(board + "/[qad]/*")}
            state["pieces"][os.path.basename(board)] = {name: st.st_size for name, st in pieces.items() if st}
        return state

    def log_lines(self):
        try:
            with open(self.spool + "/log/farm.log", errors="replace") as f:
                return f.readlines()
        except OSError:
            return []

    def check_bytes(self):
        """Every done resource's file is the origin's bytes."""
        findings = []
        seen = self.observe()
        for name, resources in seen["resources"].items():
            for r in resources:
                if r["status"] != "done":
                    continue
                origin = r["url"].rsplit("/", 1)[1]
                try:
                    with open(r["file"], "rb") as f:
                        digest = hashlib.sha256(f.read()).hexdigest()
                except (OSError, TypeError) as error:
                    findings.append(f"wrong bytes: {name} #{r['index']} ({origin}) done, its file unreadable: {error}")
                    continue
                if digest != self.sha[origin]:
                    findings.append(f"wrong bytes: {name} #{r['index']} ({origin}) done, {r['file']} is not the origin's")
        return findings

    def finish(self, model):
        if model["paused"]:
            self.f("resume")
        out = self.f("wait", "--timeout", "900", check=False, timeout=1000)
        findings = [] if out.returncode == 0 else [f"farm wait exited {out.returncode}: {out.stdout.strip()[-300:]}"]
        seen = self.observe()
        want = visible(model)
        if seen["lists"] != want["lists"]:
            findings.append("final lists differ: " + json.dumps(seen["lists"]) + " vs " + json.dumps(want["lists"]))
        for name, resources in seen["resources"].items():
            for r in resources:
                if r["status"] != "done":
                    findings.append(f"not done: {name} #{r['index']} {r['status']} {r.get('error')}")
        findings += self.check_bytes()
        self.f("stop", timeout=600)
        fsck = self.f("fsck", check=False, timeout=600)
        if fsck.returncode != 0:
            findings.append("fsck: " + (fsck.stdout + fsck.stderr).strip().replace("\n", " | ")[:2000])
        emit("PC FINAL " + json.dumps({"findings": findings,
                                      "resources": sum(len(v) for v in seen["resources"].values())}))
        sh(["umount", MOUNT])


# ---------------------------------------------------------------- the host

def merge(ranges):
    merged = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [tuple(r) for r in merged]


class Host:
    def __init__(self, options):
        self.o = options
        self.rng = random.Random(f"cuts-{options.seed}")
        self.started = time.time()
        self.kernel = sorted(glob.glob("/boot/vmlinuz-*"))[-1]
        self.root = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
        base = os.path.join(self.root, ".build")
        os.makedirs(base, exist_ok=True)
        import tempfile
        self.run = tempfile.mkdtemp(prefix="powercut-", dir=base)
        self.image = os.path.join(self.run, "disk.img")
        self.ledger = open(os.path.join(self.run, "ledger.log"), "a", buffering=1)
        self.process = None
        self.sizes = corpus(options.seed)

    def cleanup(self):
        self.kill()
        if not self.o.keep and os.path.isdir(self.run):
            for name in os.listdir(self.run):
                os.unlink(os.path.join(self.run, name))
            os.rmdir(self.run)

    def kill(self):
        """The power cut: SIGKILL to qemu (and to vng's process group, all started here)."""
        if self.process is None:
            return
        for pid in self.qemu_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        self.process = None

    def qemu_pids(self):
        """qemu and whatever else runs in the group this run started (vng, virtiofsd)."""
        pids = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[2]) == self.process.pid:  # the process group
                    pids.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
        return pids

    def fsck_image(self):
        """The journal replayed as a mount would, then e2fsck -fn's verdict."""
        replay = subprocess.run(["e2fsck", "-E", "journal_only", "-p", self.image], capture_output=True, text=True)
        check = subprocess.run(["e2fsck", "-fn", self.image], capture_output=True, text=True)
        verdict = "clean" if check.returncode == 0 else f"e2fsck exit {check.returncode}: " + check.stdout[-600:]
        return replay.returncode, verdict, check.returncode == 0

    def boot(self, number, model, candidates, final):
        plan = {"seed": self.o.seed, "farm": self.o.farm, "boot": number, "steps": steps(self.o.cuts),
                "model": model, "candidates": candidates,
                "final": final, "hold_after": self.o.cut_after if number == 0 else None}
        with open(os.path.join(self.run, "plan.json"), "w") as f:
            json.dump(plan, f)
        me = os.path.abspath(__file__)
        # The system's Python, not a shim on PATH: a shim is a shell script that runs more programs, seconds
        # under emulation. Modules the guest has no use for are kept out of udev's coldplug (most of a boot).
        python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else "python3"
        command = ["vng", "--run", self.kernel, "--disable-kvm", "--memory", "1536M", "--cpus", "2",
                   "--append", "modprobe.blacklist=" + ",".join(UNUSED_MODULES),
                   "--disk", self.image, "--exec", f"{python} {me} --guest {self.run}"]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        start_new_session=True, cwd=self.root, bufsize=1)
        return self.process

    def main(self):
        subprocess.run(["truncate", "-s", "1G", self.image], check=True)
        subprocess.run(["mkfs.ext4", "-q", "-F", self.image], check=True)
        model = {"lists": initial_lists(self.o.seed)["lists"], "workers": 2, "paused": False, "serial": 0,
                 "step": 0, "added": []}
        candidates = [model]
        coverage = {}  # file -> byte ranges served before the last cut
        redo_bytes, redo_files, verdicts, failures, cut_times = [], [], [], [], []
        acked = 0
        cuts = 0
        # Where a cut's time goes (boot to the guest's program, the check and recovery, the workload), and
        # the workload's own download rate, which the bytes fetched again are judged by.
        boots, checks, workloads, downloading = [], [], [], []
        workload_bytes = 0
        for number in range(self.o.cuts + 1):
            final = number == self.o.cuts
            if number > 0:
                replayed, verdict, clean = self.fsck_image()
                verdicts.append(verdict)
                say(f"boot {number}: e2fsck after the cut: {verdict}")
                if not clean:
                    failures.append(f"cut {number}: e2fsck: {verdict}")
            boot_started = time.time()
            process = self.boot(number, model, candidates, final)
            ready = None
            booted = None
            cut_at = None
            in_flight = None
            this_boot = {}
            result = None
            busy_this_boot = busy_at_ready = 0.0
            boot_bytes = 0  # served during this boot's workload: counted in the rate once the boot is cut
            deadline = boot_started + (1800 if final else 900)
            line_queue = []
            reader = threading.Thread(target=lambda: [line_queue.append(l) for l in process.stdout], daemon=True)
            reader.start()
            while True:
                while line_queue:
                    line = line_queue.pop(0).rstrip("\n")
                    if self.o.verbose or not line.startswith("PC SERVED"):
                        if self.o.verbose or line.startswith("PC") or "Traceback" in line or "Error" in line:
                            print(f"  [{number}] {line if line.startswith('PC STATE') else line[:300]}", flush=True)
                    if not line.startswith("PC "):
                        continue
                    kind, _, rest = line[3:].partition(" ")
                    if kind == "SERVED":
                        name, start, end, busy = rest.split()
                        start, end = int(start), int(end)
                        if ready is not None:
                            busy_this_boot = float(busy)
                        if ready is not None:
                            boot_bytes += end - start
                        this_boot.setdefault(name, []).append((start, end))
                    elif kind == "BOOTED":
                        booted = time.time()
                        boots.append(booted - boot_started)
                    elif kind == "READY":
                        ready = time.time()
                        busy_at_ready = busy_this_boot = float(rest or 0)
                        if booted is not None:
                            checks.append(ready - booted)
                        if not final and not self.o.cut_after:
                            cut_at = ready + self.rng.uniform(self.o.min_delay, self.o.max_delay)
                    elif kind == "BEGIN":
                        in_flight = json.loads(rest)
                    elif kind == "ACK":
                        step, cmd, printed = json.loads(rest)
                        self.ledger.write(rest + "\n")  # acknowledged: written at once, outside the guest
                        model = apply(self.o.seed, model, (cmd[0], cmd[1]), printed)
                        in_flight = None
                        acked += 1
                        if self.o.cut_after == cmd[0] and not final and number == 0:
                            cut_at = time.time()  # the cut chosen: just after this command exited 0
                    elif kind == "CHECK":
                        result = json.loads(rest)
                        for finding in result["findings"]:
                            failures.append(f"cut {number}: {finding}")
                            say(f"cut {number}: FINDING {finding}")
                    elif kind == "GUESTERROR":
                        failures.append(f"boot {number}: the guest's program failed: {rest}")
                    elif kind == "MODEL":
                        model = json.loads(rest)
                    elif kind == "FINAL":
                        result = json.loads(rest)
                        for finding in result["findings"]:
                            failures.append(f"final: {finding}")
                if process.poll() is not None and not reader.is_alive() and not line_queue:
                    break
                if cut_at is not None and time.time() >= cut_at:
                    self.kill()
                    if self.o.cut_after and number == 0:
                        self.o.cut_after = None
                    cuts += 1
                    cut_times.append(time.time() - boot_started)
                    workloads.append(time.time() - ready)
                    downloading.append(busy_this_boot - busy_at_ready)
                    workload_bytes += boot_bytes
                    say(f"cut {cuts} at {cut_at - ready:.1f} s into the workload"
                        + (f", {in_flight[1][0]} in flight" if in_flight else ""))
                    break
                if time.time() > deadline:
                    failures.append(f"boot {number}: no end within {deadline - boot_started:.0f} s")
                    self.kill()
                    break
                time.sleep(0.05)
            reader.join(timeout=5)
            while line_queue:  # lines read before the cut
                line = line_queue.pop(0)
                if line.startswith("PC ACK "):
                    step, cmd, printed = json.loads(line[7:])
                    self.ledger.write(line[7:])
                    model = apply(self.o.seed, model, (cmd[0], cmd[1]), printed)
                    in_flight = None
                    acked += 1
                elif line.startswith("PC SERVED "):
                    name, start, end, _ = line.split()[2:]
                    this_boot.setdefault(name, []).append((int(start), int(end)))
            if number > 0:
                # Bytes of a file served again in this boot that it had served before the cut.
                again = 0
                files = 0
                which = []
                for name, ranges in this_boot.items():
                    old = coverage.get(name, [])
                    both = [(max(start, s), min(end, e)) for start, end in merge(ranges) for s, e in old
                            if min(end, e) > max(start, s)]
                    overlap = sum(e - s for s, e in both)
                    if overlap:
                        files += 1
                        which.append(f"{name} {overlap} of {self.sizes[name]}"
                                     + (" (" + " ".join(f"{s}-{e}" for s, e in merge(both)) + ")"
                                        if self.sizes[name] > 500_000 else ""))
                    again += overlap
                redo_bytes.append(again)
                if which:
                    say(f"boot {number}: fetched again {again} bytes: " + ", ".join(sorted(which)))
                redo_files.append(files)
            for name, ranges in this_boot.items():
                coverage[name] = merge(coverage.get(name, []) + ranges)
            if not final and len(cut_times) < number + 1:
                failures.append(f"boot {number}: ended before its cut")
                break
            if ready is None and not final:
                failures.append(f"boot {number}: the guest never got to its workload")
                if result is None:
                    break
            if final:
                if result is None or "resources" not in result:
                    failures.append("final: the last boot did not finish its check")
                break
            candidates = [model]
            if in_flight is not None:
                step, cmd = in_flight
                candidates.append(apply(self.o.seed, model, (cmd[0], cmd[1]), None))
        wall = time.time() - self.started
        # The workload's download rate: its bytes over the seconds it was downloading (the origin sending
        # at least one response), so that the yardstick is seconds of work, not of commands over lists done.
        rate = workload_bytes / sum(downloading) if sum(downloading) > 0 else 0
        average = workload_bytes / sum(workloads) if sum(workloads) > 0 else 0
        worst_redo_seconds = max(redo_bytes) / rate if redo_bytes and rate else 0
        if self.o.redo_seconds > 0 and redo_bytes and rate and worst_redo_seconds > self.o.redo_seconds:
            failures.append(f"redo: the worst cut fetched {max(redo_bytes)} bytes again, {worst_redo_seconds:.1f} s "
                            f"of the workload's {rate:.0f} bytes a second (at most {self.o.redo_seconds:g} s)")

        def median(values):
            return round(statistics.median(values), 1) if values else 0
        summary = {
            "cuts": cuts, "acknowledged": acked, "seed": self.o.seed,
            "findings": len(failures),
            "e2fsck_clean": sum(1 for v in verdicts if v == "clean"), "e2fsck_checked": len(verdicts),
            "redo_bytes_median": statistics.median(redo_bytes) if redo_bytes else 0,
            "redo_bytes_worst": max(redo_bytes) if redo_bytes else 0,
            "redo_files_worst": max(redo_files) if redo_files else 0,
            "origin_rate_bytes_per_second": Origin.rate,
            "workload_rate_bytes_per_second": round(rate),
            "workload_average_bytes_per_second": round(average),
            "downloading_seconds": round(sum(downloading)), "workload_seconds": round(sum(workloads)),
            "redo_seconds_worst": round(worst_redo_seconds, 2),
            "boot_seconds_median": median(boots), "check_seconds_median": median(checks),
            "workload_seconds_median": median(workloads),
            "wall_seconds": round(wall), "seconds_per_cut": round(wall / max(1, cuts), 1),
        }
        for failure in failures:
            print("FAIL " + failure, flush=True)
        print("powercut summary: " + json.dumps(summary), flush=True)
        return 0 if not failures else 1


def main():
    parser = argparse.ArgumentParser(description="Cut the power under farm N times and check what survives.")
    parser.add_argument("--cuts", type=int, default=50)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--farm", default=None)
    parser.add_argument("--min-delay", type=float, default=1.0, help="earliest cut, seconds into the workload")
    parser.add_argument("--max-delay", type=float, default=25.0, help="latest cut, seconds into the workload")
    parser.add_argument("--cut-after", metavar="COMMAND",
                        help="cut the first boot's power as soon as a command of this kind (scale, pause, "
                             "item-add…) exits 0, instead of at a random instant")
    parser.add_argument("--redo-seconds", type=float, default=5.0,
                        help="most bytes fetched again after a cut, in seconds of the workload's download rate "
                             "(its bytes over the time it was downloading) "
                             "(0: reported, not judged, as a short run's timing should be)")
    parser.add_argument("--keep", action="store_true", help="keep the run's folder (disk image, ledger)")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--guest", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.guest:
        try:
            Guest(options.guest).main()
        except Exception as error:  # the host reads this line; the guest then powers off
            import traceback
            traceback.print_exc(file=sys.stdout)
            emit(f"PC GUESTERROR {error}")
        return 0
    if options.seed is None:
        options.seed = random.randrange(1 << 31)
    print(f"powercut: seed {options.seed}, {options.cuts} cuts", flush=True)
    host = Host(options)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: (host.cleanup(), sys.exit(130)))
    try:
        return host.main()
    finally:
        host.cleanup()


if __name__ == "__main__":
    sys.exit(main())
