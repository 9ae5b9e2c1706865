"""The syncs the protocol makes, each named, with where it is made (--list-syncs, --without-sync NAME).

A recorded sync call is named by what it syncs (its call and the spool path of its file) and the step that
made it; `where` is the Swift call site, found by a text that stays with it (so that a line moved keeps its
name right).
"""
import os
import re

from workload import MIRROR, WARC  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))

# name, (source file, text at the call), matcher(call, path relative to the spool, step kind). A recursive
# list's crawl (FarmLists' CrawlAppend.swift) appends a page's links as `farm item add` does and queues them as
# a batch staged as an add's: the same call sites, made by a worker ("work").
SITES = [
    ("add-stage", ("Sources/FarmSpool/Protocol/Enqueue.swift", "try FileSystem.syncFileSystem(stage)"),
     lambda c, p, k: c == "syncfs" and (k == "add" or (p or "").startswith("tmp/stage-"))),
    ("add-queue", ("Sources/FarmSpool/Protocol/Enqueue.swift", "try FileSystem.syncDirectory(queue)"),
     lambda c, p, k: c == "fsync" and p == "queue" and k in ("add", "work")),
    ("add-lists", ("Sources/FarmSpool/Protocol/Enqueue.swift", "try FileSystem.syncDirectory(self.lists.folder)"),
     lambda c, p, k: c == "fsync" and p == "lists" and k == "add"),
    ("edit-journal", ("Sources/FarmLists/ListEdit.swift", "try fd.sync()", "func journal(_ numbers: String"),
     lambda c, p, k: c == "fsync" and re.fullmatch(r"lists/[0-9a-f]{16}\.edit(\.new)?", p or "") is not None),
    ("edit-table", ("Sources/FarmLists/PageLog.swift", "try fd.sync()"),  # Lists.appendDurably
     lambda c, p, k: c in ("fsync", "fdatasync") and re.fullmatch(r"lists/[0-9a-f]{16}\.resources", p or "") is not None),
    ("edit-job-folders", ("Sources/FarmLists/ListEdit.swift", "try? FileSystem.syncDirectory(folder)"),
     lambda c, p, k: c == "fsync" and (p or "").startswith("queue/")),
    ("edit-queue", ("Sources/FarmLists/ListEdit.swift", "try? FileSystem.syncDirectory(spool.queue)"),
     lambda c, p, k: c == "fsync" and p == "queue" and k in ("item-add", "sync")),
    ("edit-order", ("Sources/FarmLists/ListOrder.swift", "try fd.sync()"),
     lambda c, p, k: c in ("fsync", "fdatasync") and re.fullmatch(r"(lists|tmp)/.*order.*", p or "") is not None),
    ("edit-journal-name", ("Sources/FarmLists/ListEdit.swift", "try FileSystem.syncDirectory(spool.lists.folder)"),
     lambda c, p, k, after_order=False: c == "fsync" and p == "lists" and not after_order
     and k in ("item-add", "item-rm", "item-move", "sync", "work")),
    ("edit-lists", ("Sources/FarmLists/ListOrder.swift", "try FileSystem.syncDirectory(spool.lists.folder)"),
     lambda c, p, k, after_order=False: c == "fsync" and p == "lists" and after_order
     and k in ("item-add", "item-rm", "item-move", "sync", "work")),
    # Also an add's note of its WARC folder (warc/folders/<key>, WARCFiles.register): the same call.
    ("control-data", ("Sources/FarmSpool/Protocol/ScratchFiles.swift", "try AtomicFile.write(bytes, to: path, stagedAt: self.path(name), sync: durable)"),
     lambda c, p, k: c == "fdatasync" and (p or "").startswith("tmp/") and k in ("scale", "limit", "pause", "resume", "add")),
    ("control-dir", ("Sources/FarmSpool/Protocol/ScratchFiles.swift", "if durable { try FileSystem.syncDirectory"),
     lambda c, p, k: c == "fsync" and (p == "control" and k in ("scale", "limit") or p == "warc/folders" and k == "add")),
    ("pause-flag", ("Sources/FarmSpool/Protocol/ControlFiles.swift", "try FileSystem.syncDirectory(String(path"),
     lambda c, p, k: c == "fsync" and p == "control" and k in ("pause", "resume")),
    ("finished-syncfs", ("Sources/FarmSpool/Protocol/Durability.swift", "try FileSystem.syncFileSystem(spool.root)"),
     lambda c, p, k: c == "syncfs" and p == "" and k in ("watch", "work", "handback", "killed")),
    # A list recorded as WARC (SPEC §18; FarmWorker's WARCArchive.swift says why each is there): a URL's mark
    # before its records are appended, the new file's name, each append, the file's finished name; recovery's
    # cut of a torn tail and its rename. `last`: the step's last metadata operation before the sync.
    ("warc-mark", ("Sources/FarmWorker/WARCMark.swift", "try fd.syncData()"),
     lambda c, p, k, last=None: c in ("fsync", "fdatasync") and (p or "").startswith("warc/urls/")),
    ("warc-open", ("Sources/FarmWARC/WARCFile.swift", "try FileSystem.syncDirectory(directory)"),
     lambda c, p, k, last=None: c == "fsync" and p == WARC and last is not None and last[0] == "create"
     and last[2].endswith(".open")),
    ("warc-append", ("Sources/FarmWARC/WARCFile.swift", "do { try fd.syncData() } catch { throw WARCError(\"cannot write \\(openPath) to the disk"),
     lambda c, p, k, last=None: c in ("fsync", "fdatasync") and (p or "").startswith(WARC + "/") and k != "recovery"),
    ("warc-finish", ("Sources/FarmWARC/WARCFile.swift", "try FileSystem.syncDirectory(directory)", "func finish()"),
     lambda c, p, k, last=None: c == "fsync" and p == WARC and k != "recovery" and last is not None
     and last[0] in ("rename", "unlink") and last[2].endswith(".open")),
    ("warc-recovery-cut", ("Sources/FarmWARC/WARCRecovery.swift", "try fd.syncData()"),
     lambda c, p, k, last=None: c in ("fsync", "fdatasync") and (p or "").startswith(WARC + "/") and k == "recovery"),
    ("warc-recovery-dir", ("Sources/FarmWARC/WARCRecovery.swift", "try FileSystem.syncDirectory(directory)"),
     lambda c, p, k, last=None: c == "fsync" and p == WARC and k == "recovery"),
    # A delivery to `--out` (FarmLists' Delivery.swift): its copy, an unnamed file synced before it is linked
    # in; `--convert-links`' rewrite of a delivered page (by the watcher), synced before its rename over it.
    ("delivery-copy", ("Sources/FarmLists/Delivery.swift", "try to.sync()", "private func copy("),
     lambda c, p, k: c in ("fsync", "fdatasync") and (p or "").startswith(MIRROR + "/") and k != "watch"),
    ("convert-links-file", ("Sources/FarmLists/Delivery.swift", "try to.sync()", "func replace("),
     lambda c, p, k: c in ("fsync", "fdatasync") and (p or "").startswith(MIRROR + "/") and k == "watch"),
    ("piece-start", ("Sources/FarmWorker/PieceRun.swift", "try partial.fd.syncData("),
     lambda c, p, k: c in ("srange", "fdatasync") and (p or "").startswith("partial/") and k != "recovery"),
]


def where(spec):
    """`spec`: (file, text at the call) or (file, text at the call, a text before it: the call is the first
    after that one, where the file has the same call elsewhere too)."""
    path, text, after = (*spec, None) if len(spec) == 2 else spec
    try:
        with open(os.path.join(ROOT, path)) as f:
            for number, line in enumerate(f, 1):
                if after is not None:
                    if after in line:
                        after = None
                    continue
                if text in line:
                    return f"{path}:{number}"
    except OSError:
        pass
    return f"{path} (call site not found: {text})"


def describe(op):
    """(call, path relative to the spool) of a recorded sync operation."""
    return op["op"][0], op["op"][2]


def name_of(op, steps, before=()):
    """The name of the sync `op`; `before`: the operations before it (an fsync of lists/ in an edit is the
    journal's name before the order's rename, the order's after it)."""
    call, rel = describe(op)
    kind = steps[op["step"]][1]
    after_order = False
    # The step's last metadata operation before this sync (a WARC file's creation, rename or removal).
    last = next((o["op"] for o in reversed(before) if o["step"] == op["step"]
                 and o["op"][0] in ("create", "rename", "link", "unlink")), None)
    for o in reversed(before):
        if o["step"] != op["step"]:
            break
        if o["op"][0] == "rename" and o["op"][4].endswith(".order"):
            after_order = True
            break
    for name, _, match in SITES:
        if (match(call, rel, kind, after_order) if name in ("edit-lists", "edit-journal-name")
                else match(call, rel, kind, last) if name.startswith("warc-") else match(call, rel, kind)):
            return name
    return f"unnamed:{call}:{rel}:{kind}"


def self_check():
    """Every site's call is found in the sources, and every name is unique."""
    problems = [f"{name}: {where(spec)}" for name, spec, _ in SITES if "not found" in where(spec)]
    names = [s[0] for s in SITES]
    problems += [f"{n}: named twice" for n in set(names) if names.count(n) > 1]
    return problems
