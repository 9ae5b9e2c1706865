"""The workload: a local origin and the steps of the protocol, each run once, recorded by strace.

Each step is run on the one spool (on tmpfs), with a snapshot of the spool taken before it (fsmodel.Tree) and
the job names and visible state (lists, items, desired state) after it, which the checks compare with.
"""
import hashlib
import http.server
import json
import os
import random
import subprocess
import sys
import threading
import time

from trace import TRACED

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "RangeOrigin"))
from range_origin import RangeOrigin  # noqa: E402

PORT = 0  # the origin's, once it serves (a free port: runs side by side do not meet)


def corpus():
    rng = random.Random("crashstates")
    files = {f"f{n}.bin": rng.randbytes(rng.randint(3000, 9000)) for n in range(12)}
    files["big.bin"] = rng.randbytes(200_000)
    return files


class Origin(RangeOrigin):
    """`slow*` names are sent slowly (a lease renewed, a worker stopped mid-transfer)."""

    def data_for(self, name):
        return self.files.get(name[5:] if name.startswith("slow-") else name)

    def send_body(self, name, data, start, end):
        if not name.startswith("slow-"):
            return super().send_body(name, data, start, end)
        # In eighths of the file, a pause after each: about a second and a half a file, in few writes
        # (each write a crash point: a thousand small ones would be a thousand states alike).
        chunk = max(1024, len(data) // 8)
        try:
            for at in range(start, end, chunk):
                self.wfile.write(data[at:min(end, at + chunk)])
                self.wfile.flush()
                time.sleep(0.2)
        except OSError:
            pass


def serve():
    Origin.files = corpus()
    global PORT
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Origin)
    PORT = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def url(name):
    return f"http://127.0.0.1:{PORT}/{name}"


def expected_sha(link):
    """The sha256 of what the origin serves at `link`."""
    name = link.rsplit("/", 1)[1]
    name = name[5:] if name.startswith("slow-") else name
    data = Origin.files.get(name) if Origin.files else corpus().get(name)
    return hashlib.sha256(data).hexdigest() if data is not None else None


# Each step: (name, kind, acknowledging, what it runs). Kinds name what the step covers (SPEC §19).
FULL = [
    ("add A", "add", True, ("farm", "add", "{src}/A.json", "--accept", "any")),
    ("work A: claim, renew, store, complete", "work", False, ("farm", "work", "--exit-when-idle", "--lease", "2",
                                                               "--transfers", "1")),
    ("watcher: sync of finished jobs", "watch", False, ("watch",)),
    ("item add", "item-add", True, ("farm", "item", "add", "A.json", "{url:f7.bin}", "--at", "1")),
    ("item move", "item-move", True, ("farm", "item", "move", "A.json", "{id:A.json:0}", "2")),
    ("item rm (a done item: its outputs removed)", "item-rm", True, ("farm", "item", "rm", "A.json",
                                                                       "{id:A.json:1}")),
    ("sync A", "sync", True, ("farm", "sync", "A.json")),
    ("scale", "scale", True, ("farm", "scale", "3")),
    ("pause", "pause", True, ("farm", "pause")),
    ("limit", "limit", True, ("farm", "limit", "2M")),
    ("resume", "resume", True, ("farm", "resume")),
    ("add B (hooks)", "add", True, ("farm", "add", "{src}/B.json", "--accept", "any", "--on-done", "/bin/true")),
    ("work B: hooks due, run, recorded", "work", False, ("farm", "work", "--exit-when-idle", "--lease", "2")),
    ("add C (pieces)", "add", True, ("farm", "add", "{src}/C.json", "--accept", "any", "--connections", "3",
                                     "--min-piece", "64K")),
    ("work C: pieces taken and done", "work", False, ("farm", "work", "--exit-when-idle", "--lease", "2")),
    ("add D", "add", True, ("farm", "add", "{src}/D.json", "--accept", "any")),
    ("work D stopped: hand back", "handback", False, ("farm", "work", "--lease", "2", "--transfers", "1")),
    ("work D killed -9 mid-transfer: claim, store", "killed", False, ("farm", "work", "--lease", "2",
                                                                     "--transfers", "1")),
    ("recovery after a power cut (a worker killed mid-transfer)", "recovery", False,
     ("farm", "recover", "--lease", "0")),
    ("watcher after the reboot: recheck", "watch", False, ("watch",)),
]

SHORT = [s for s in FULL if s[1] in ("add", "work", "watch", "item-add", "pause")][:5]

SOURCES = {
    "A.json": ["f0.bin", "slow-f1.bin", "f2.bin"],
    "B.json": ["f3.bin", "f4.bin"],
    "C.json": ["slow-big.bin"],
    "D.json": ["slow-f5.bin"],
}


def write_source(directory, name, files):
    with open(os.path.join(directory, name), "w") as out:
        json.dump({"items": [{"imageUrlString": url(f)} for f in files]}, out)


def strace_command(log):
    return ["strace", "-f", "-qq", "-y", "-xx", "-s", "8388608", "--seccomp-bpf", "-e", "signal=none",
            "-e", "trace=" + TRACED, "-o", log]
