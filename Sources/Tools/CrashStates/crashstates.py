#!/usr/bin/env python3
"""Every crash state of the spool's protocol (SPEC §19), for bin/crashstates.

What it does
  1. Records each step of a workload (workload.py: adds, item add/move/rm, sync, scale, pause, limit, resume;
     a worker's claims, renewals, stores and completions; hooks due, run and recorded; pieces taken and done;
     a hand-back; a worker killed -9 mid-transfer; the recovery after a power cut; the watcher's sync and its
     recheck after a reboot; a list recorded as WARC: its URL marks, appends and finished file, a worker killed
     with its file open, a torn tail and the recovery that cuts it; a worker's conversion of images to their
     display image and thumbnail) as its system calls: strace -f -y -xx, on a spool in tmpfs, against a local origin.
     The spool is read whole before each step (fsmodel.Tree).
  2. For each step, in a window of up to 3 steps in a row ending with it (ACE's bound: most crash bugs need 3
     operations or fewer), builds every state a crash during that step may leave (crashmodel.py, the model
     below), and dedupes identical trees.
  3. Checks each on a tmpfs copy at the spool's own path, after the farm's own recovery as after a reboot
     (replay.py: farm recover, a watcher until it has rechecked the finished jobs, then farm fsck), against
     §17's and §2's promises:
       - an acknowledged command (one whose process exited 0 before the crash) is not undone: the lists,
         the items of the lists it edits in order, the desired workers, paused, the limit are as after it; and
         its lists are shown before any recovery too (status, item and export recover nothing);
       - each job is in exactly one state, none lost or doubled: the jobs are those before the step or those
         after it (an edit in flight: between the two), and after an acknowledged one, those after it;
       - nothing done is short or wrong: each done job's file has the origin's bytes for its URL;
       - the work redone is bounded (§17: a few seconds' worth): a job in done/ when the watcher's syncfs
         began, before the crash, is still done (a power cut costs at most the downloads since that sync);
       - farm fsck finds nothing, and recovery itself did not fail;
       - a done resource's display image and thumbnail are there, not empty, with the bytes the recording's
         conversion made;
       - SPEC §18: the WARC files hold no torn record and none is left `.open`; no URL has two response
         records; after a step of a WARC list, once a worker has let the farm finish its lists
         (workload.FINISHED_IN_REPLAY), each done resource of a WARC list has exactly one.

The crash model: ext4 with data=ordered (its default: delayed allocation, auto_da_alloc), after ALICE's
abstract persistence model (Pillai et al., "All File Systems Are Not Created Equal", OSDI '14: the calls of a
run split into metadata and data operations; a crash keeps those a sync made durable and, of the rest, what
the file system's ordering allows) and CrashMonkey/ACE (Mohan et al., "Finding Crash-Consistency Bugs with
Bounded Black-Box Crash Testing", OSDI '18: crash after each persistence point; workloads of at most 3 core
operations), with ext4's own rules from its documentation (Documentation/admin-guide/ext4.rst: data=ordered
"all data [is] forced directly out to the main file system prior to its metadata being committed to the
journal"; auto_da_alloc: a file renamed over another has its data written first) and from ALICE's table of
ext4-ordered's persistence properties (directory operations atomic and ordered; appends neither atomic nor
ordered with other operations):
  - A crash after any prefix of the calls (every call a crash point, in the order the calls returned).
  - What a sync keeps, by --model:
      ext4 (the default): any fsync, fdatasync or syncfs commits ext4's running journal transaction, which
        holds every metadata change made before it (ext4 and XFS keep metadata strictly ordered), so every
        metadata operation before the last sync is kept; fsync/fdatasync of a file keeps its data too,
        syncfs (and sync) everyone's.
      posix: a sync keeps what POSIX promises and no more (ALICE's stricter model, what other file systems
        may do): fsync/fdatasync of a file keeps its data (fsync its extended attributes too), fsync of a
        directory its entries' changes (a rename: either end's), syncfs everything before it. A name made in
        a folder is kept only by a sync of that folder.
    sync_file_range keeps nothing by itself (man 2 sync_file_range: no metadata, no cache flush); on ext4 it
    orders: the bytes it wrote back are kept once any metadata change made after it is (a later commit).
  - The metadata operations no sync kept (creations, renames, links, unlinks, extended attributes) are
    kept as a prefix of them in program order (ext4's journal commits transactions in order), each with the
    ones it needs (the earlier changes of the same names, the emptying of a removed directory).
  - Each file's data writes and truncations no sync kept are kept as a prefix of them (in order, per file,
    independently of other files and of metadata: delayed allocation), except that a rename over an existing
    file that was kept keeps its file's data before it (auto_da_alloc). A file's bytes never written read as
    a hole (the farm tells them by SEEK_HOLE), which is what an extended size with unwritten blocks leaves.
  - Not modelled: torn writes within a block (ext4 writes whole pages; the farm's records are small), times
    (every file of a state is as fresh as the replay: the recheck after a reboot looks at all of them), mode
    changes after creation, a file system shared between hosts.
  - Bounds: every crash point and every metadata prefix; data prefixes: every combination when there are at
    most crashmodel.DATA_COMBINATIONS, else each file alone at each end and random ones (seeded), up to that
    many. Identical resulting trees (with the same expectations) are checked once.

Output: each finding whole (the step, the calls kept and not, what broke); the last line
`crashstates: N states, S steps, F found` (N: states built; the distinct trees checked are said before it).
Options: --short (CI, a few minutes: the first steps, windows of 2), --list-syncs, --without-sync NAME (explore
with that sync absent from the model, only the windows that make it, until a first finding: it must find one;
a state counts only when the same crash with the sync in place, what it makes durable added, does not break the
same way; `each`: every listed sync in turn over one recording), --model ext4|posix, --only TEXT (the steps named so),
--self-check (the model, the parser and the syncs' call sites, without the farm), --jobs J, --seed S,
--workdir DIR (tmpfs), --keep, --verbose. Needs root (unshare -m -T) and strace.
"""
import argparse
import sys

sys.dont_write_bytecode = True  # the tool's modules leave nothing in the source tree

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import crashmodel  # noqa: E402
import fsmodel  # noqa: E402
import syncs  # noqa: E402
import trace  # noqa: E402
import workload  # noqa: E402

WORK = "/dev/shm/crashstates"
REPLAY_BOOT = "crashstates-replay-boot"


def say(*parts):
    print("crashstates:", *parts, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- recording

class Recording:
    def __init__(self, farm, steps, verbose):
        self.farm = farm
        self.steps = steps
        self.verbose = verbose
        self.spool = WORK + "/spool"
        self.src = WORK + "/sources"
        # Every shard of an add's batch claimed as a pack (a farm packs only deep queues): the workload's
        # claims, completions, hand-backs and kills are those of packs, and of single jobs once handed back.
        self.env = dict(os.environ, FARM_SPOOL=self.spool, HOME=WORK, XDG_STATE_HOME=WORK + "/state",
                        FARM_PACK_DEPTH="0")
        self.bases = []  # the tree before each step
        self.calls = []  # each step's calls
        self.after = []  # (jobs, signature) after each step
        self.done_after = []  # the jobs in done/ after each step
        self.outputs = {}  # URL -> the sha256 of its display image and thumbnail, as the recording made them
        self.mirror = None  # the files delivered to MIRROR once the recording's watcher converted its links
        self.ids = {}

    def f(self, *args, check=True):
        r = subprocess.run([self.farm, *args], capture_output=True, text=True, env=self.env, timeout=120)
        if check and r.returncode != 0:
            raise RuntimeError(f"farm {' '.join(args)} exited {r.returncode}: {(r.stdout + r.stderr).strip()[:400]}")
        return r

    def signature(self):
        import replay
        saved = os.environ.get("FARM_SPOOL")
        os.environ["FARM_SPOOL"] = self.spool
        try:
            return replay.signature(self.farm, signature_lists(self.steps), limit_flag(self.steps))
        finally:
            if saved is None:
                del os.environ["FARM_SPOOL"]
            else:
                os.environ["FARM_SPOOL"] = saved

    def item_id(self, name, index):
        resources = json.loads(self.f("status", name, "--json").stdout)["resources"]
        return sorted(resources, key=lambda r: r["index"])[index]["id"]

    def argv(self, step):
        out = []
        for a in step[3]:
            if a.startswith("{url:"):
                a = workload.url(a[5:-1])
            if a.startswith("{id:"):
                _, name, index = a.strip("{}").split(":")
                a = self.item_id(name, int(index))
            out.append(a.replace("{src}", self.src).replace("{warc}", self.spool + "/" + workload.WARC)
                       .replace("{mirror}", self.spool + "/" + workload.MIRROR))
        if out and out[0] == "farm":
            out[0] = self.farm
        return out

    def run(self):
        shutil.rmtree(WORK, ignore_errors=True)
        os.makedirs(self.src)
        for name, files in workload.SOURCES.items():
            workload.write_source(self.src, name, files)
        with open(WORK + "/replay-boot", "w") as f:
            f.write(REPLAY_BOOT + "\n")
        with open(WORK + "/record-boot", "w") as f:
            f.write("crashstates-record-boot\n")
        for number, step in enumerate(self.steps):
            self.bases.append(fsmodel.Tree.read(self.spool))
            log = f"{WORK}/trace-{number}.log"
            self.record(step, log)
            self.calls.append(trace.read_log(log))
            places = jobs_of(self.spool)
            self.after.append((set(places), self.signature()))
            self.done_after.append({job for job, where in places.items() if "done" in where})
            import replay
            if step[0] in workload.CONVERTED_IN_REPLAY and step[1] == "watch":
                if not replay.converted(self.spool) or not replay.converting_lists(self.spool):
                    raise RuntimeError(f"step {step[0]}: the watcher converted no list's links")
                self.mirror = replay.tree_shas(self.spool + "/" + workload.MIRROR)
            for d in replay.done_outputs(self.spool).values():
                if d["url"] and (d.get("image") or d.get("thumb")):
                    self.outputs[d["url"]] = {"image": d.get("image"), "thumb": d.get("thumb")}
            if self.verbose:
                say(f"recorded step {number} ({step[0]}): {len(self.calls[-1])} calls")

    def record(self, step, log):
        name, kind, _, _ = step
        st = workload.strace_command(log)
        if kind == "sync":
            workload.write_source(self.src, "A.json", ["f0.bin", "slow-f1.bin", "f8.bin"])
        if kind == "watch":
            reboot = "after the reboot" in name
            cmd = st + [self.farm, "watch"]
            if reboot:
                cmd = self.in_new_boot(st + [self.farm, "watch"])
            p = subprocess.Popen(cmd, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
            time.sleep(2.5)
            self.signal_farm(p, signal.SIGTERM)
            p.wait(timeout=60)
            return
        if kind in ("handback", "killed"):
            p = subprocess.Popen(st + self.argv(step), env=self.env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
            deadline = time.monotonic() + 60
            warc = self.spool + "/" + workload.WARC
            while time.monotonic() < deadline:
                partials = [os.path.getsize(os.path.join(self.spool, "partial", n))
                            for n in os.listdir(self.spool + "/partial")]
                # A WARC list's worker: killed with its file open (a first resource recorded in it).
                opened = "WARC" not in name or (os.path.isdir(warc) and any(n.endswith(".open")
                                                                           for n in os.listdir(warc)))
                if os.listdir(self.spool + "/active") and any(s > 2000 for s in partials) and opened:
                    break
                time.sleep(0.05)
            self.signal_farm(p, signal.SIGTERM if kind == "handback" else signal.SIGKILL)
            p.wait(timeout=60)
            return
        argv = self.argv(step)
        if kind == "recovery":
            if "torn" in name:
                self.tear()
            subprocess.run(self.in_new_boot(st + argv), env=self.env, check=True, capture_output=True, timeout=120)
            return
        r = subprocess.run(st + argv, env=self.env, capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            raise RuntimeError(f"step {name}: exited {r.returncode}: {r.stderr.strip()[:400]}")

    def tear(self):
        """What a power cut during an append leaves in the dead writer's open WARC file: half a gzip member
        after its whole ones (the model keeps whole writes only: a tear within one is made here)."""
        import zlib
        warc = self.spool + "/" + workload.WARC
        opened = sorted(n for n in os.listdir(warc) if n.endswith(".open")) if os.path.isdir(warc) else []
        if not opened:
            raise RuntimeError(f"no open WARC file in {warc} to tear: the worker was killed before its first record")
        with open(f"{warc}/{opened[0]}", "rb") as f:
            data = f.read()
        d = zlib.decompressobj(31)
        d.decompress(data)
        first = data[: len(data) - len(d.unused_data)]
        with open(f"{warc}/{opened[0]}", "ab") as f:
            f.write(first[: len(first) // 2])

    def in_new_boot(self, argv):
        script = (f"mount --bind {WORK}/record-boot /proc/sys/kernel/random/boot_id && exec \"$@\"")
        return ["unshare", "-m", "-T", "--boottime", f"-{int(uptime()) - 1}", "sh", "-c", script, "sh", *argv]

    def signal_farm(self, strace_process, sig):
        """Signals the farm process strace runs (its child), not strace."""
        for _ in range(100):
            try:
                with open(f"/proc/{strace_process.pid}/task/{strace_process.pid}/children") as f:
                    children = [int(c) for c in f.read().split()]
            except OSError:
                children = []
            for child in children:
                # the farm process itself, or (under unshare) the one below it
                target = child
                try:
                    with open(f"/proc/{child}/comm") as f:
                        comm = f.read().strip()
                    if comm in ("unshare", "sh"):
                        with open(f"/proc/{child}/task/{child}/children") as f:
                            target = int(f.read().split()[0])
                except (OSError, IndexError):
                    continue
                os.kill(target, sig)
                return
            time.sleep(0.05)
        raise RuntimeError("no farm process under strace to signal")


def replay_job(name):
    import replay
    return replay.JOB.match(name) is not None


def uptime():
    with open("/proc/uptime") as f:
        return float(f.read().split()[0])


def jobs_of(spool):
    sys.path.insert(0, HERE)
    import replay
    return {job: tuple(where) for job, where in replay.jobs(spool).items()}


# ---------------------------------------------------------------- exploring

class Explorer:
    def __init__(self, recording, farm, absent_sync, jobs, seed, window, verbose, short, model):
        self.r = recording
        self.model = model
        self.only = None
        self.farm = farm
        self.absent_sync = absent_sync
        self.jobs = jobs
        self.rng = random.Random(seed)
        self.window = window
        self.verbose = verbose
        self.short = short
        self.states = 0
        self.checked = 0
        self.findings = []
        self.seen = set()
        self.lock = threading.Lock()
        self.slots = [f"{WORK}/replay-{n}" for n in range(jobs)]
        self.free = list(self.slots)
        self.sync_hits = 0
        self.unnamed = set()
        self.not_the_syncs = 0  # without a sync: findings the same crash with it in place shows too

    def expectations(self, i, k_done, first, synced_done=()):
        """What a state must show after recovery, for a crash in step i (k_done: step i made all its calls,
        so it exited; acknowledged when it is a command). `synced_done`: the jobs in done/ when the last
        syncfs before the crash was made, still done after step i (the watcher's promise: not redone)."""
        before = set(self.r.after[i - 1][0]) if i > 0 else set()
        after = set(self.r.after[i][0])
        ack_i = self.r.steps[i][2] and k_done
        last_ack = None
        for j in range(i - 1, -1, -1):
            if self.r.steps[j][2]:
                last_ack = j
                break
        sigs = []
        if ack_i:
            sigs = [i]
        elif last_ack is not None:
            sigs = [last_ack] + ([i] if self.r.steps[i][2] else [])
            if self.r.steps[i][1] in ("sync", "item-add", "item-rm", "item-move"):
                sigs = None  # an edit in flight may be anywhere between (each of its edits is atomic)
        jobs = {"exact": sorted(after)} if (ack_i or before == after) else \
            {"within": [sorted(before & after), sorted(before | after)]}
        return {"jobs": jobs, "sigs": sigs, "synced_done": sorted(set(synced_done) & self.r.done_after[i]),
                "finish": self.r.steps[i][0] in workload.FINISHED_IN_REPLAY,
                "convert": self.r.steps[i][0] in workload.CONVERTED_IN_REPLAY and self.r.mirror is not None}

    @staticmethod
    def done_at(win, s):
        """The jobs in done/ once the first s operations of `win` are all on disk."""
        root, entries, _ = win.materialize_plan(set(range(s)), {})
        done = entries.get((root, "done"))
        lists = [ino for (d, _), ino in entries.items() if d == done] if done else []
        return {name for (d, name), _ in entries.items() if d in lists and replay_job(name)}

    def run(self, pool):
        steps = self.r.steps
        futures = []
        for i in range(len(steps)):
            if self.only and self.only not in steps[i][0]:
                continue
            first = max(0, i - self.window + 1)
            rec = fsmodel.Recorder(self.r.bases[first], WORK + "/spool")
            bounds = []
            for j in range(first, i + 1):
                start = len(rec.ops)
                for call in self.r.calls[j]:
                    rec.apply(call, j)
                bounds.append((j, start, len(rec.ops)))
            ops = rec.ops
            for n in range(bounds[-1][1], len(ops)):
                if ops[n]["op"][0] in ("fsync", "fdatasync", "syncfs", "srange"):
                    sync_name = syncs.name_of(ops[n], steps, ops[:n])
                    if sync_name.startswith("unnamed") and sync_name not in self.unnamed:
                        self.unnamed.add(sync_name)
                        say(f"a sync no name in syncs.py matches: {sync_name} ({readable(ops[n]['call'])})")
            absent = frozenset(n for n, o in enumerate(ops) if o["op"][0] in ("fsync", "fdatasync", "syncfs", "srange")
                               and self.absent_sync and syncs.name_of(o, steps, ops[:n]) == self.absent_sync)
            self.sync_hits += sum(1 for n in absent if ops[n]["step"] == i)
            if self.absent_sync and (not absent or self.findings):
                continue  # a window without that sync has the states of the full run; one finding is enough
            win = crashmodel.Window(self.r.bases[first], ops, rec.inodes, absent, self.model)
            _, start, end = bounds[-1]
            lowest = start if i == 0 else start + 1
            if absent:
                lowest = max(lowest, min(absent) + 1)  # before the absent sync, the states are the full run's
            whole = crashmodel.Window(self.r.bases[first], ops, rec.inodes, frozenset(), self.model) if absent else None
            syncfs = [n for n, o in enumerate(ops) if o["op"][0] == "syncfs"]
            synced = {}
            for k in range(lowest, end + 1):
                # The watcher's syncfs promises that every job in done/ when it began is on disk (SPEC §17:
                # the work redone after a cut is at most the second since): checked from the recording,
                # whatever the model keeps, so that a state without it shows the redo.
                last = max((n for n in syncfs if n < k), default=None)
                if last is not None and last not in synced:
                    synced[last] = self.done_at(win, last)
                exp = self.expectations(i, k == end, first, synced.get(last, ()))
                # Without a sync, only the states the sync would have ruled out: a finding in a state the
                # whole model has too is not that sync's.
                possible = {whole.fingerprint(whole.materialize_plan(kept, data))
                            for kept, data in whole.states(k, random.Random(0))} if whole else set()
                for kept, data in win.states(k, self.rng):
                    self.states += 1
                    plan = win.materialize_plan(kept, data)
                    if plan[0] is None:
                        continue  # no spool yet: the first add had made nothing, and acknowledged nothing
                    if whole and win.fingerprint(plan) in possible:
                        continue
                    key = (win.fingerprint(plan), json.dumps(exp, sort_keys=True))
                    if key in self.seen:
                        continue
                    self.seen.add(key)
                    context = {"step": i, "k": k, "first": first, "kept": kept, "data": data, "ops": ops,
                               "whole": whole}
                    futures.append(pool.submit(self.check, plan, exp, context))
            # keep memory bounded: wait for this step's checks
            for fut in futures:
                fut.result()
            futures = []
            if self.verbose:
                say(f"step {i} ({steps[i][0]}): {self.states} states so far, {self.checked} checked, "
                    f"{len(self.findings)} found")

    def check(self, plan, exp, context):
        problems = self.replay(plan, exp)
        whole = context["whole"]
        if problems and whole is not None:
            # Without a sync, a finding is that sync's only when the same crash with the sync in place (what it
            # makes durable added to the state) does not show it too: a tree that differs in what the sync
            # keeps (a file's bytes, say) can break in a way that has nothing to do with them.
            restored = whole.materialize_plan(*whole.restore(context["k"], context["kept"], context["data"]))
            if set(problems) <= set(self.replay(restored, exp)):
                with self.lock:
                    self.checked += 1
                    self.not_the_syncs += 1
                return
        with self.lock:
            self.checked += 1
            if problems:
                self.findings.append(self.describe(context, problems))
                print(self.findings[-1], flush=True)

    def replay(self, plan, exp):
        """The problems of the state `plan` after the farm's recovery (replay.py), judged against `exp`."""
        with self.lock:
            slot = self.free.pop()
        try:
            tree = slot + "/spool"
            shutil.rmtree(slot, ignore_errors=True)
            os.makedirs(slot)
            crashmodel.write_tree(plan, tree)
            lists, limit = signature_lists(self.r.steps), limit_flag(self.r.steps)
            cmd = ["unshare", "-m", "-T", "--boottime", f"-{int(uptime()) - 1}", sys.executable, "-S",
                   os.path.join(HERE, "replay.py"), self.farm, tree, WORK + "/spool", WORK + "/replay-boot",
                   lists, limit, str(time.time()), WORK + "/spool/" + workload.WARC, "1" if exp["finish"] else "0",
                   WORK + "/spool/" + workload.MIRROR, "1" if exp["convert"] else "0"]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            try:
                result = json.loads(r.stdout)
            except ValueError:
                result = None
            return self.judge(result, r, exp)
        finally:
            with self.lock:
                self.free.append(slot)

    def judge(self, result, r, exp):
        if result is None:
            return [f"the replay failed: {(r.stderr or r.stdout).strip()[-800:]}"]
        problems = []
        if result["recover"][0] != 0:
            problems.append(f"farm recover exited {result['recover'][0]}: {result['recover'][1]}")
        if result["stop"][0] != 0:
            problems.append(f"farm stop exited {result['stop'][0]}: {result['stop'][1]}")
        if not result["watch"][0]:
            problems.append(f"the watcher did not recheck after the reboot (exit {result['watch'][1]}): "
                            f"{result['watch'][2]}")
        if result.get("work") and result["work"][0] != 0:
            problems.append(f"farm work (finishing the lists) exited {result['work'][0]}: {result['work'][1]}")
        if result["fsck"][0] != 0 or not result["fsck"][1].get("clean"):
            problems.append("fsck: " + json.dumps(result["fsck"][1].get("findings"))[:1500])
        for job, where in sorted(result["jobs"].items()):
            if len(where) > 1:
                problems.append(f"doubled: {job} in {' and '.join(where)}")
        # As recovered, before a worker finished the lists (a recursive list's crawl adds jobs).
        places = result.get("jobs_recovered") or result["jobs"]
        found = set(places)
        if "exact" in exp["jobs"]:
            want = set(exp["jobs"]["exact"])
            if found != want:
                problems.append(f"jobs: lost {sorted(want - found)}, extra {sorted(found - want)}")
        else:
            low, high = map(set, exp["jobs"]["within"])
            if not low <= found or not found <= high:
                problems.append(f"jobs: lost {sorted(low - found)}, extra {sorted(found - high)}")
        for job, d in sorted(result["done"].items()):
            want = workload.expected_sha(d["url"]) if d["url"] else None
            if d["sha"] != want:
                problems.append(f"done but wrong: {job} ({d['url']}): its file {d['file']} "
                                f"{'has ' + str(d['size']) + ' bytes, not the origin' if d['size'] is not None else d['sha']}")
        problems += self.judge_outputs(result)
        problems += self.judge_warc(result, exp)
        problems += self.judge_mirror(result, exp)
        for job in exp["synced_done"]:
            if "done" not in places.get(job, []):
                problems.append(f"redone: {job} was in done/ when the watcher's syncfs began, before the crash, "
                                f"and is {'/'.join(places.get(job, [])) or 'nowhere'} after the recovery")
        if exp["sigs"]:
            # An acknowledged add's list is shown as soon as the machine is back, before any recovery: commands
            # that recover nothing (status, item, export) see it too.
            shown = set(result.get("lists_before") or [])
            missing = set.intersection(*(set(self.r.after[j][1].get("lists", [])) for j in exp["sigs"])) - shown
            if missing:
                problems.append(f"before any recovery, farm status does not show the acknowledged list(s) "
                                f"{sorted(missing)}")
            wants = [self.r.after[j][1] for j in exp["sigs"]]
            if result["signature"] not in wants:
                problems.append("undone: the spool shows " + json.dumps(result["signature"]) + "; acknowledged: "
                                + " or ".join(json.dumps(w) for w in wants))
        return problems

    def judge_outputs(self, result):
        """A done resource's display image and thumbnail (SPEC §17: no done resource whose outputs are missing,
        empty or wrong): those its outcome names are whole, with the bytes the recording's conversion made."""
        problems = []
        for job, d in sorted(result["done"].items()):
            want = self.r.outputs.get(d["url"])
            for what in ("image", "thumb"):
                got = d.get(what)
                if want and want.get(what) and not got:
                    problems.append(f"done without its {what}: {job} ({d['url']}): its outcome names none")
                elif got and (got.get("sha") is None or got.get("size") == 0
                              or want and want.get(what) and got["sha"] != want[what]["sha"]):
                    problems.append(f"done but its {what} is wrong: {job} ({d['url']}): {got['path']} "
                                    f"{got.get('error') or str(got.get('size')) + ' bytes, not the conversion'}")
        return problems

    def judge_warc(self, result, exp):
        """SPEC §18 across crashes: no torn record and no `.open` file once recovered; never two responses of
        one URL; once the list is finished, exactly one for each URL fetched (each done job's)."""
        warc = result.get("warc")
        if warc is None:
            return []
        problems = [f"WARC: {p}" for p in warc["torn"]]
        problems += [f"WARC: {n} still open after the recovery" for n in warc["open"]]
        counts = warc["responses"]
        problems += [f"WARC: {n} response records of {u}" for u, n in sorted(counts.items()) if n > 1]
        if exp["finish"]:
            warc_urls = {workload.url(f) for name in workload.WARC_LISTS for f in workload.SOURCES[name]}
            for job, d in sorted(result["done"].items()):
                if d["url"] in warc_urls and counts.get(d["url"], 0) != 1:
                    problems.append(f"WARC: the list finished, {counts.get(d['url'], 0)} response records of "
                                    f"{d['url']} ({job}, done)")
        return problems

    def judge_mirror(self, result, exp):
        """`--convert-links` across crashes: once the farm finished the list and a watcher ran, the list is
        marked converted and every delivered file has the bytes the recording's conversion gave it (a page
        half rewritten, or left as fetched under the mark, differs)."""
        if not exp.get("convert") or result.get("mirror") is None:
            return []  # not a step of the mirror, or its add was not kept
        problems = []
        if not result.get("converted"):
            problems.append("--convert-links: the list finished, the next watcher did not mark it converted")
        got, want = result.get("mirror") or {}, self.r.mirror
        for rel in sorted(set(got) | set(want)):
            if got.get(rel) != want.get(rel):
                problems.append(f"--convert-links: {rel} " + ("missing" if rel not in got else "not delivered in the "
                                "recording" if rel not in want else "not as converted (half rewritten or as fetched)"))
        return problems

    def describe(self, c, problems):
        ops = c["ops"]
        lines = [f"FINDING in step {c['step']} ({self.r.steps[c['step']][0]}), window from step {c['first']}, "
                 f"crash after {c['k']} of {len(ops)} calls that change the spool"]
        for n, o in enumerate(ops[: c["k"]]):
            op = o["op"]
            if op[0] in crashmodel.META:
                mark = "kept" if n in c["kept"] else "lost"
            elif op[0] == "data":
                mark = "kept" if n <= c["data"].get(op[1], -1) else "lost"
            else:
                mark = "sync" + (" (absent)" if self.absent_sync
                                 and syncs.name_of(o, self.r.steps, ops[:n]) == self.absent_sync else "")
            lines.append(f"  {mark:>4} step {o['step']} pid {o['pid']}: {readable(o['call'])}")
        lines += ["  broke: " + p for p in problems]
        return "\n".join(lines)


def readable(line):
    """A call's strace line with its hex strings decoded where they are text."""
    import re

    def dec(m):
        raw = trace.unescape(m.group(1))
        try:
            text = raw.decode()
            if all(ch.isprintable() or ch in "\n\t" for ch in text):
                return json.dumps(text)[:160]
        except UnicodeDecodeError:
            pass
        return f"<{len(raw)} bytes>"
    line = re.sub(r'"((?:\\x[0-9a-f]{2})+)"', dec, line)
    line = re.sub(r"<((?:\\x[0-9a-f]{2})+)>", lambda m: "<" + trace.unescape(m.group(1)).decode(errors="replace") + ">", line)
    return line[:400]


# ---------------------------------------------------------------- main

def main():
    global WORK
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--farm")
    ap.add_argument("--short", action="store_true", help="CI: the first steps only, windows of 2")
    ap.add_argument("--list-syncs", action="store_true")
    ap.add_argument("--self-check", action="store_true",
                    help="the model, the parser and the syncs' call sites checked, without the farm")
    ap.add_argument("--without-sync", metavar="NAME",
                    help="explore with that sync absent from the model (each: every listed sync in turn, one "
                         "recording)")
    ap.add_argument("--jobs", type=int, default=16, help="states checked at once (each mostly waits on farm)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--model", choices=["ext4", "posix"], default="ext4",
                    help="ext4 (the default): what ext4's journal keeps; posix: a sync keeps only what POSIX "
                         "promises (stricter: other file systems)")
    ap.add_argument("--only", metavar="TEXT", help="explore only the steps whose name holds TEXT (all are recorded up to "
                                                  "the last of them)")
    ap.add_argument("--keep", action="store_true", help="keep the work folder (the traces, the last states)")
    ap.add_argument("--workdir", default="/dev/shm/crashstates", help="on tmpfs: the recorded spool, the traces, the replays")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    WORK = os.path.abspath(args.workdir)
    if not args.self_check and not args.list_syncs and not args.farm:
        sys.exit("crashstates: --farm PATH is needed (bin/crashstates gives it)")
    if os.geteuid() != 0 and not args.self_check and not args.list_syncs:
        sys.exit("crashstates: needs root (unshare -m -T: each state is checked in a namespace of its own)")
    if shutil.which("strace") is None:
        sys.exit("crashstates: needs strace (bin/setup installs it)")
    if args.self_check:
        problems = crashmodel.self_check() + syncs.self_check() + trace.self_check()
        for p in problems:
            print("crashstates: self-check:", p)
        print(f"crashstates: self-check {'failed' if problems else 'passed'}")
        sys.exit(1 if problems else 0)
    if args.list_syncs:
        for name, where, _ in syncs.SITES:
            print(f"{name}\t{syncs.where(where)}")
        return
    if args.without_sync and args.without_sync != "each" and args.without_sync not in [s[0] for s in syncs.SITES]:
        sys.exit(f"crashstates: no sync named {args.without_sync} (see --list-syncs)")
    steps = workload.SHORT if args.short else workload.FULL
    if args.only:
        chosen = [n for n, s in enumerate(steps) if args.only in s[0]]
        if not chosen:
            sys.exit(f"crashstates: no step named with {args.only!r}")
        steps = steps[: chosen[-1] + 1]
    started = time.monotonic()
    origin = workload.serve()
    try:
        rec = Recording(args.farm, steps, args.verbose)
        rec.run()
        say(f"recorded {len(steps)} steps in {time.monotonic() - started:.0f} s")
        time.sleep(2.5)  # every recorded claim is older than the replays' boot (a second old)
        names = [n for n, _, _ in syncs.SITES] if args.without_sync == "each" else [args.without_sync]
        found_without = {}
        total_states = total_findings = 0
        for name in names:
            # Without a sync: windows of 2 steps (the step that makes it and the next), from just after it.
            explorer = Explorer(rec, args.farm, name, args.jobs, args.seed, 2 if args.short or name else 3,
                                args.verbose, args.short, args.model)
            explorer.only = args.only
            with ThreadPoolExecutor(max_workers=args.jobs) as pool:
                explorer.run(pool)
            total_states += explorer.states
            total_findings += len(explorer.findings)
            if name:
                found_without[name] = (explorer.sync_hits, len(explorer.findings))
                if args.without_sync == "each":
                    say(f"without {name}: " + ("not made by the workload" if not explorer.sync_hits else
                                               "found" if explorer.findings else "NOT found")
                        + f" ({explorer.states} states, {explorer.checked} checked"
                        + (f"; {explorer.not_the_syncs} broken as with it in place" if explorer.not_the_syncs else "")
                        + ")")
    finally:
        origin.shutdown()
    if args.without_sync and args.without_sync != "each" and explorer.sync_hits == 0:
        say(f"{args.without_sync}: the workload made no such sync")
    if args.without_sync and args.without_sync != "each" and explorer.not_the_syncs:
        say(f"without {args.without_sync}: {explorer.not_the_syncs} states broken as the same crash with it in place "
            "is: not counted")
    say(f"{explorer.checked} distinct trees checked in {time.monotonic() - started:.0f} s")
    kinds = {}
    for finding in explorer.findings:
        for line in finding.splitlines():
            if line.startswith("  broke: "):
                kind = re.sub(r"[0-9a-f]{16,}", "…", line[9:])[:160]
                kinds[kind] = kinds.get(kind, 0) + 1
    for kind, count in sorted(kinds.items(), key=lambda kv: -kv[1]):
        say(f"found {count}x: {kind}")
    if not args.keep:
        shutil.rmtree(WORK, ignore_errors=True)
    print(f"crashstates: {total_states} states, {len(steps)} steps, {total_findings} found")
    if args.without_sync:
        # A sync removed must be missed somewhere: the run fails when some removal was not found.
        missed = [n for n, (hits, found) in found_without.items() if hits and not found]
        absent = [n for n, (hits, _) in found_without.items() if not hits]
        if args.without_sync != "each" and absent:
            sys.exit(1)
        sys.exit(1 if missed else 0)
    sys.exit(1 if explorer.findings else 0)


def signature_lists(steps):
    """The lists whose items the steps edit: their items, in order, are part of what is acknowledged."""
    return "A.json" if any(s[1] in ("sync", "item-add", "item-rm", "item-move") for s in steps) else ""


def limit_flag(steps):
    return "1" if any(s[1] == "limit" for s in steps) else "0"


if __name__ == "__main__":
    main()
