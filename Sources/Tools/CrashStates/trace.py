"""Recording a step as its system calls: strace's log read back into the calls that change a spool (files made,
written, renamed, linked, unlinked; extended attributes; syncs), with their order, process and files.

strace runs with -f -y -xx: every descriptor shows the path it names at the time of the call, every string is
hex (a write's bytes whole, with -s large enough), and each call of a thread interrupted by another's is logged
twice (`<unfinished ...>` then `<... resumed>`), put together here at its end: a call takes effect when it
returns, and that is the order of the calls the model replays.
"""
import re

TRACED = ("open,openat,creat,write,pwrite64,writev,pwritev,pwritev2,ftruncate,truncate,fallocate,lseek,"
          "rename,renameat,renameat2,link,linkat,unlink,unlinkat,mkdir,mkdirat,mknod,mknodat,rmdir,symlink,symlinkat,"
          "fsync,fdatasync,syncfs,sync,sync_file_range,setxattr,fsetxattr,lsetxattr,removexattr,fremovexattr,"
          "lremovexattr,copy_file_range,sendfile,close,dup,dup2,dup3,fcntl")

LINE = re.compile(r"^(\d+)\s+(.*)$")
# A descriptor of an unnamed file (O_TMPFILE) or one unlinked shows `<path>(deleted)`.
CALL = re.compile(r"^([a-z0-9_]+)\((.*)\)\s+=\s+(-?\d+|\?)(?:<(.*?)>(\(deleted\))?)?(?:\s+(E[A-Z]+).*)?$", re.S)


def unescape(text):
    """A C string as strace prints it (with -xx every byte is \\xNN), as bytes."""
    out = bytearray()
    i = 0
    simple = {"n": 10, "t": 9, "r": 13, "v": 11, "f": 12, "\\": 92, '"': 34, "'": 39, "a": 7, "b": 8}
    while i < len(text):
        c = text[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "x":
            out.append(int(text[i + 2:i + 4], 16))
            i += 4
        elif nxt in simple:
            out.append(simple[nxt])
            i += 2
        elif nxt.isdigit():
            j = i + 1
            while j < len(text) and j < i + 4 and text[j] in "01234567":
                j += 1
            out.append(int(text[i + 1:j], 8))
            i = j
        else:
            out += nxt.encode()
            i += 2
    return bytes(out)


def split_args(text):
    """Top-level arguments of a call: commas inside quotes, brackets, braces or a descriptor's <path> do
    not split."""
    args, depth, cur, i, quote = [], 0, [], 0, False
    while i < len(text):
        c = text[i]
        if quote:
            cur.append(c)
            if c == "\\":
                cur.append(text[i + 1])
                i += 2
                continue
            if c == '"':
                quote = False
        elif c == '"':
            quote = True
            cur.append(c)
        elif c in "[{(<":
            depth += 1
            cur.append(c)
        elif c in "]})>":
            depth -= 1
            cur.append(c)
        elif c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    if cur or args:
        args.append("".join(cur).strip())
    return args


def string_arg(arg):
    """The bytes of a quoted argument (a path, a write's buffer): strace's `"..."...` marks a cut string."""
    m = re.match(r'^"(.*)"(\.\.\.)?$', arg, re.S)
    if not m:
        return None
    if m.group(2):
        raise ValueError("a string cut short: raise strace's -s")
    return unescape(m.group(1))


def fd_arg(arg):
    """(number, path) of a descriptor printed with -y: `5</a/b>`, `AT_FDCWD</cwd>`; path None if none."""
    m = re.match(r"^(-?\d+|AT_FDCWD)(?:<(.*)>(\(deleted\))?)?$", arg, re.S)
    if not m:
        return None, None
    path = unescape(m.group(2)).decode("utf-8", "surrogateescape") if m.group(2) is not None else None
    if path is not None and m.group(3):
        path += " (deleted)"  # a file with no name: an unnamed file, or one removed while open
    return m.group(1), path


def number(arg):
    m = re.match(r"^(-?\d+)", arg)
    return int(m.group(1)) if m else None


def iovec_bytes(arg):
    return b"".join(unescape(m.group(1)) for m in re.finditer(r'iov_base="((?:[^"\\]|\\.)*)"', arg))


def read_log(path):
    """Each completed call, in the order they returned: dict(pid, name, args, ret, errno, retpath, line)."""
    pending = {}
    calls = []
    with open(path, errors="surrogateescape") as log:
        for raw in log:
            raw = raw.rstrip("\n")
            m = LINE.match(raw)
            if not m:
                continue
            pid, rest = int(m.group(1)), m.group(2)
            if rest.startswith("+++") or rest.startswith("---"):
                continue
            if rest.endswith("<unfinished ...>"):
                pending[pid] = rest[: -len("<unfinished ...>")].rstrip()
                continue
            r = re.match(r"^<\.\.\. ([a-z0-9_]+) resumed>\s?(.*)$", rest, re.S)
            if r:
                head = pending.pop(pid, None)
                if head is None:
                    continue
                rest = head + r.group(2)
            c = CALL.match(rest)
            if not c:
                continue
            if c.group(3) == "?":
                continue  # the process died in the call: it took no effect the model can know of
            calls.append({"pid": pid, "name": c.group(1), "args": split_args(c.group(2)), "ret": int(c.group(3)),
                          "retpath": unescape(c.group(4)).decode("utf-8", "surrogateescape") if c.group(4) else None, "errno": c.group(6), "line": raw[:2000]})
    return calls


def self_check():
    """strace's lines as this parser reads them: a call put together from its two halves, -y's paths, -xx."""
    import os
    import tempfile
    lines = ['7 renameat2(AT_FDCWD<\\x2f\\x74>, "\\x2f\\x61", AT_FDCWD<\\x2f\\x74>, "\\x2f\\x62", '
             'RENAME_NOREPLACE <unfinished ...>',
             '8 fsync(3<\\x2f\\x71>) = 0',
             '7 <... renameat2 resumed>) = 0']
    with tempfile.NamedTemporaryFile("w", delete=False) as f:
        f.write("\n".join(lines) + "\n")
    try:
        calls = read_log(f.name)
    finally:
        os.unlink(f.name)
    problems = []
    if [c["name"] for c in calls] != ["fsync", "renameat2"]:
        problems.append(f"trace: calls read {[c['name'] for c in calls]}, not fsync then renameat2")
    elif string_arg(calls[1]["args"][1]) != b"/a" or fd_arg(calls[0]["args"][0]) != ("3", "/q"):
        problems.append(f"trace: arguments read wrong: {calls}")
    return problems
