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
    # After the names above (the same generator: their bytes stay as they were). Images, converted to a
    # display image and a thumbnail (the conversion's steps); a big file for a WARC list's worker killed
    # mid-transfer (its URLs are its own: bytes served from another list's download are not recorded).
    files["wbig.bin"] = rng.randbytes(60_000)
    # Larger than a thumbnail (256 px): a PNG is its own display image and gets a thumbnail; a GIF's first
    # frame is its display image, which gets one too.
    files["img0.png"] = png(rng, 320, 200)
    files["img1.gif"] = gif(rng, 300, 40)
    # A recursive list's pages (text/html), converted by `--convert-links` once it is finished.
    # Root-relative links: the conversion rewrites them (to paths relative to the page).
    files["mirror.html"] = (b'<html><body><a href="/mirror-a.html">a</a> <a href="/mirror-b.html">b</a>'
                            b' <img src="/mirror.png"></body></html>\n')
    files["mirror-a.html"] = b'<html><body><a href="/mirror.html">back</a> <img src="/mirror.png"></body></html>\n'
    files["mirror-b.html"] = b'<html><body><a href="/mirror-a.html">a</a></body></html>\n'
    files["mirror.png"] = png(rng, 20, 20)
    return files


def rows_of(rng, width, height, colours):
    """Bands of random colours, one a row: index rows."""
    return [bytes([rng.randrange(colours)]) * width for _ in range(height)]


def png(rng, width, height):
    """A small RGB PNG of random colour bands (what the worker's converter reads)."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    rows = b"".join(b"\0" + bytes(rng.randrange(256) for _ in range(3)) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def gif(rng, width, height):
    """A GIF87a of 4 colours, its LZW data uncompressed (a clear code every two pixels keeps codes 3 bits)."""
    import struct
    palette = bytes(rng.randrange(256) for _ in range(12))
    codes = []
    pixels = b"".join(rows_of(rng, width, height, 4))
    for at in range(0, len(pixels), 2):
        codes += [4] + list(pixels[at:at + 2])
    codes.append(5)
    bits = "".join(format(c, "03b")[::-1] for c in codes)
    bits += "0" * (-len(bits) % 8)
    data = bytes(int(bits[i:i + 8][::-1], 2) for i in range(0, len(bits), 8))
    blocks = b"".join(bytes([len(data[i:i + 255])]) + data[i:i + 255] for i in range(0, len(data), 255))
    return (b"GIF87a" + struct.pack("<HHBBB", width, height, 0x81, 0, 0) + palette
            + b"," + struct.pack("<HHHHB", 0, 0, width, height, 0) + b"\x02" + blocks + b"\x00;")


class Origin(RangeOrigin):
    """`slow*` names are sent slowly (a lease renewed, a worker stopped mid-transfer)."""

    def data_for(self, name):
        self.html = name.endswith(".html")
        return self.files.get(name[5:] if name.startswith("slow-") else name)

    def send_header(self, keyword, value):
        # Pages as pages: a recursive list reads the links of what is served as HTML.
        if keyword == "Content-Type" and getattr(self, "html", False):
            value = "text/html"
        super().send_header(keyword, value)

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

# A list recorded as WARC (SPEC §18) into a folder in the spool's tree (WARC, below), so that the model keeps
# its files with the spool's: each URL's mark written and locked, the records appended and fdatasynced, the
# completion; the file finished when the worker ends; a worker killed mid-transfer with its file open, then a
# power cut that tore its tail (the harness appends half a gzip member: see crashstates.py's "tear") and the
# recovery that cuts it. Then images: a worker's conversion (display image, thumbnail) and completion.
WARC_STEPS = [
    ("add W (WARC)", "add", True, ("farm", "add", "{src}/W.json", "--accept", "any", "--warc", "{warc}")),
    ("work W (WARC): URL marks, records appended, completion, file finished", "work", False,
     ("farm", "work", "--exit-when-idle", "--lease", "2", "--transfers", "1")),
]
CONVERT_STEPS = [
    ("add I (images)", "add", True, ("farm", "add", "{src}/I.json", "--accept", "any")),
    ("work I: stored, converted (display image, thumbnail), completed", "work", False,
     ("farm", "work", "--exit-when-idle", "--lease", "2", "--transfers", "1")),
]
WARC_KILL_STEPS = [
    ("add X (WARC)", "add", True, ("farm", "add", "{src}/X.json", "--accept", "any", "--warc", "{warc}")),
    ("work X (WARC) killed -9 mid-transfer, its WARC file open", "killed", False,
     ("farm", "work", "--lease", "2", "--transfers", "1")),
    ("recovery after a power cut (a WARC file's torn tail cut)", "recovery", False,
     ("farm", "recover", "--lease", "0")),
]
# A recursive list delivered to `--out` (in the spool's tree, MIRROR below) with `--convert-links`: the watcher
# rewrites its delivered pages once it is finished (FarmLists' LinkConversion.swift), then marks it converted.
MIRROR_STEPS = [
    ("add M (recursive, --out, --convert-links)", "add", True,
     ("farm", "add", "{url:mirror.html}", "--recursive", "--no-robots", "--out", "{mirror}", "--convert-links")),
    ("work M: pages crawled and delivered", "work", False,
     ("farm", "work", "--exit-when-idle", "--lease", "2", "--transfers", "1")),
    ("watcher: links of M converted", "watch", False, ("watch",)),
]
FULL += WARC_STEPS + CONVERT_STEPS + WARC_KILL_STEPS + MIRROR_STEPS

# The first steps, then the WARC and conversion steps (before the pause: a paused farm works nothing).
_FIRST = [s for s in FULL if s[1] in ("add", "work", "watch", "item-add", "pause")][:5]
SHORT = _FIRST[:4] + WARC_STEPS + CONVERT_STEPS + _FIRST[4:]

# The steps after which the farm is let finish the lists in each crash state (a worker, then the checks):
# the WARC lists' (their promise is about a finished list's files).
FINISHED_IN_REPLAY = {s[0] for s in WARC_STEPS + WARC_KILL_STEPS + MIRROR_STEPS}
# The steps after which a watcher then runs until every list with `--convert-links` is converted, and each
# delivered page must be as the recording's watcher converted it (never half rewritten).
CONVERTED_IN_REPLAY = {s[0] for s in MIRROR_STEPS}
MIRROR = "mirror"  # M's --out folder, in the spool's folder

WARC = "warc-files"  # the WARC folder of W and X, in the spool's folder (so in every state's tree)

SOURCES = {
    "A.json": ["f0.bin", "slow-f1.bin", "f2.bin"],
    "B.json": ["f3.bin", "f4.bin"],
    "C.json": ["slow-big.bin"],
    "D.json": ["slow-f5.bin"],
    "W.json": ["f9.bin", "f10.bin"],
    "I.json": ["img0.png", "img1.gif"],
    "X.json": ["f11.bin", "slow-wbig.bin"],
}
WARC_LISTS = ("W.json", "X.json")


def write_source(directory, name, files):
    with open(os.path.join(directory, name), "w") as out:
        json.dump({"items": [{"imageUrlString": url(f)} for f in files]}, out)


def strace_command(log):
    return ["strace", "-f", "-qq", "-y", "-xx", "-s", "8388608", "--seccomp-bpf", "-e", "signal=none",
            "-e", "trace=" + TRACED, "-o", log]
