"""The spool as inodes and directory entries, and the calls of a step as operations on them.

`Tree` is a spool read from disk (a snapshot taken before a step): inodes (a file's bytes, a directory, a
symbolic link's text; mode and extended attributes) and entries (directory inode, name) -> inode. `Recorder`
replays strace's calls on a copy of it as the real run made them, to name every call's files as inodes, and
turns each into an operation of the crash model (crashmodel.py):
  ("create", dir, name, ino)        a file, directory or symbolic link made (its inode described in `inodes`);
                                    an unnamed file (O_TMPFILE) is made in dir UNNAMED (no folder: no entry
                                    of the tree), and named by a "link" (linkat of /proc/self/fd/N)
  ("rename", sdir, sname, ddir, dname, ino, replaced)   one atomic step, as ext4 journals it
  ("link", dir, name, ino)          ("unlink", dir, name, ino)     (rmdir is an unlink of a directory)
  ("xattr", ino, name, value|None)  ("chmod", ino, mode)
  ("data", ino, offset, bytes|None, size|None)   a write (bytes at offset) or a new size (truncate)
  ("fsync", ino, path) ("fdatasync", ino, path) ("syncfs", None, path)   (path: relative to the spool)
Only what lies under the spool's root is kept: a manifest in /tmp, a socket, a pipe are not the spool.
"""
import os
import re
import stat

from trace import fd_arg, iovec_bytes, number, string_arg


UNNAMED = "unnamed"  # the "directory" of unnamed files' creations: none of the tree's


class Inode:
    __slots__ = ("kind", "data", "target", "mode", "xattrs")

    def __init__(self, kind, data=b"", target=None, mode=0o600, xattrs=None):
        self.kind, self.data, self.target, self.mode = kind, bytearray(data), target, mode
        self.xattrs = dict(xattrs or {})

    def copy(self):
        return Inode(self.kind, self.data, self.target, self.mode, self.xattrs)


class Tree:
    """Inodes and entries of a directory tree; `root` is its top directory's inode."""

    def __init__(self):
        self.inodes = {}
        self.entries = {}  # (dir ino, name) -> ino
        self.root = None

    @staticmethod
    def read(path):
        tree = Tree()
        seen = {}

        def ino_of(st):
            key = (st.st_dev, st.st_ino)
            if key not in seen:
                seen[key] = f"b{len(seen)}"
            return seen[key]

        def load(p, st):
            ino = ino_of(st)
            if ino in tree.inodes:
                return ino
            xattrs = {}
            if not stat.S_ISLNK(st.st_mode):
                for name in os.listxattr(p, follow_symlinks=False):
                    xattrs[name] = os.getxattr(p, name, follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                tree.inodes[ino] = Inode("dir", mode=stat.S_IMODE(st.st_mode), xattrs=xattrs)
                for name in sorted(os.listdir(p)):
                    child = os.path.join(p, name)
                    tree.entries[(ino, name)] = load(child, os.lstat(child))
            elif stat.S_ISLNK(st.st_mode):
                tree.inodes[ino] = Inode("link", target=os.readlink(p), mode=0o777)
            elif stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    tree.inodes[ino] = Inode("file", f.read(), mode=stat.S_IMODE(st.st_mode), xattrs=xattrs)
            else:
                tree.inodes[ino] = Inode("other", mode=stat.S_IMODE(st.st_mode))
            return ino

        if os.path.isdir(path):
            tree.root = load(path, os.lstat(path))
        else:
            tree.root = "b-root"  # no spool yet: its folder is made by the step
            tree.inodes[tree.root] = Inode("dir", mode=0o700)
        return tree


def entry_offset(arg):
    """An offset argument passed by pointer (copy_file_range's) as it was when the call began: strace prints
    `[A]`, or `[A => B]` when it shows the value the call left."""
    return number(arg.strip("[]").split("=>")[0].strip())


class Recorder:
    """Follows a step's calls on the spool as they ran, from the tree before it."""

    def __init__(self, tree, root):
        self.root = root.rstrip("/")
        self.inodes = {k: v.copy() for k, v in tree.inodes.items()}
        self.entries = dict(tree.entries)
        self.rootino = tree.root
        self.paths = {}  # path relative to root -> ino
        self.children = {}
        self.fresh = 0
        self.positions = {}  # (pid, fd) -> offset
        self.unnamed = {}  # (pid, fd) -> ino of an unnamed file (O_TMPFILE) open there
        self.ops = []
        self._index(self.rootino, "")
        self.rootexists = tree.root != "b-root"

    def _index(self, ino, rel):
        self.paths[rel] = ino
        for (d, name), child in self.entries.items():
            if d == ino:
                self._index(child, rel + "/" + name if rel else name)

    def new_ino(self):
        self.fresh += 1
        return f"n{self.fresh}"

    def rel(self, path):
        """The path relative to the spool's root, or None when outside it."""
        if path is None:
            return None
        path = os.path.normpath(path)
        if path == self.root:
            return ""
        if path.startswith(self.root + "/"):
            return path[len(self.root) + 1:]
        return None

    def lookup(self, rel):
        return self.paths.get(rel)

    def parent(self, rel):
        head, _, name = rel.rpartition("/")
        return self.paths.get(head), name

    def resolve(self, dirarg, patharg):
        """The absolute path a *at call names, from its directory descriptor (with -y its path) and path."""
        path = string_arg(patharg)
        if path is None:
            return None
        path = path.decode("utf-8", "surrogateescape")
        if path.startswith("/"):
            return path
        _, base = fd_arg(dirarg) if dirarg is not None else (None, None)
        return os.path.join(base, path) if base else None

    # ---- the changes, applied to the real run's view and recorded as operations

    def _emit(self, op, call, step):
        self.ops.append({"op": op, "call": call["line"], "pid": call["pid"], "step": step})

    def _move_paths(self, old, new):
        moved = {p: i for p, i in self.paths.items() if p == old or p.startswith(old + "/")}
        for p in moved:
            del self.paths[p]
        for p, i in moved.items():
            self.paths[new + p[len(old):]] = i

    def create(self, rel, kind, call, step, mode=0o600, target=None):
        if rel == "" and not self.rootexists:  # the spool's own folder
            self.rootexists = True
            self.paths[""] = self.rootino
            self._emit(("create", None, "", self.rootino), call, step)
            return self.rootino
        d, name = self.parent(rel)
        if d is None:
            return None
        ino = self.new_ino()
        self.inodes[ino] = Inode(kind, target=target, mode=mode)
        self.entries[(d, name)] = ino
        self.paths[rel] = ino
        self._emit(("create", d, name, ino), call, step)
        return ino

    def data(self, ino, offset, payload, call, step, size=None):
        node = self.inodes[ino]
        if payload is not None:
            end = offset + len(payload)
            if len(node.data) < offset:
                node.data.extend(b"\0" * (offset - len(node.data)))
            node.data[offset:end] = payload
            self._emit(("data", ino, offset, bytes(payload), None), call, step)
        else:
            if size < len(node.data):
                del node.data[size:]
            else:
                node.data.extend(b"\0" * (size - len(node.data)))
            self._emit(("data", ino, 0, None, size), call, step)

    def apply_unnamed(self, call, step):
        """An unnamed file (O_TMPFILE: a delivery's copy, FarmSystem's openUnnamed) made, written, marked,
        synced and linked in: True when `call` was one of those."""
        n, a, ret = call["name"], call["args"], call["ret"]
        if n == "openat" and "O_TMPFILE" in a[2]:
            rel = self.rel(self.resolve(a[0], a[1]))
            if rel is None:
                return True
            ino = self.new_ino()
            mode = int(a[3], 8) & 0o7777 if len(a) > 3 and a[3].startswith("0") else 0o600
            self.inodes[ino] = Inode("file", mode=mode)
            self.unnamed[(call["pid"], ret)] = ino
            self.positions[(call["pid"], ret)] = 0
            self._emit(("create", UNNAMED, ino, ino), call, step)
            return True
        if n == "close":
            self.unnamed.pop((call["pid"], number(a[0])), None)
            return False
        if n in ("write", "pwrite64", "writev", "pwritev", "pwritev2"):
            ino = self.fd_ino(call, a[0])
            if ino is None:
                return False
            payload = (string_arg(a[1]) if n in ("write", "pwrite64") else iovec_bytes(a[1]))[:ret]
            key = (call["pid"], number(a[0]))
            offset = number(a[3]) if n.startswith("pwrite") else self.positions.get(key, 0)
            if not n.startswith("pwrite"):
                self.positions[key] = offset + len(payload)
            self.data(ino, offset, payload, call, step)
            return True
        if n == "copy_file_range":
            ino = self.fd_ino(call, a[2])
            if ino is None:
                return False
            src = self.rel(fd_arg(a[0])[1])
            si = self.lookup(src) if src is not None else None
            soff = entry_offset(a[1]) if a[1] != "NULL" else 0
            doff = entry_offset(a[3]) if a[3] != "NULL" else self.positions.get((call["pid"], number(a[2])), 0)
            if a[3] == "NULL":
                self.positions[(call["pid"], number(a[2]))] = doff + ret
            if ret > 0:
                payload = bytes(self.inodes[si].data[soff:soff + ret]) if si else b"\0" * ret
                self.data(ino, doff, payload, call, step)
            return True
        if n in ("ftruncate", "fallocate"):
            ino = self.fd_ino(call, a[0])
            if ino is None:
                return False
            if n == "ftruncate":
                self.data(ino, 0, None, call, step, size=number(a[1]))
            return True
        if n in ("fsetxattr", "fremovexattr"):
            ino = self.fd_ino(call, a[0])
            if ino is None:
                return False
            name = string_arg(a[1]).decode()
            value = None if n == "fremovexattr" else string_arg(a[2])[: number(a[3])]
            if value is None:
                self.inodes[ino].xattrs.pop(name, None)
            else:
                self.inodes[ino].xattrs[name] = value
            self._emit(("xattr", ino, name, value), call, step)
            return True
        if n in ("fsync", "fdatasync", "sync_file_range"):
            ino = self.fd_ino(call, a[0])
            if ino is None:
                return False
            rel = self.rel(fd_arg(a[0])[1])
            self._emit(("srange" if n == "sync_file_range" else n, ino, rel), call, step)
            return True
        if n == "linkat":
            old = string_arg(a[1])
            m = re.match(rb"^/proc/self/fd/(\d+)$", old or b"")
            ino = self.unnamed.get((call["pid"], int(m.group(1)))) if m else \
                (self.fd_ino(call, a[0]) if old == b"" and "AT_EMPTY_PATH" in a[4] else None)
            if ino is None:
                return False
            rn = self.rel(self.resolve(a[2], a[3]))
            if rn is None:
                return True
            d, name = self.parent(rn)
            self.entries[(d, name)] = ino
            self.paths[rn] = ino
            self._emit(("link", d, name, ino), call, step)
            return True
        return False

    def fd_ino(self, call, arg):
        """The inode of an unnamed file open as descriptor `arg` of the call's process, or None."""
        fd, _ = fd_arg(arg)
        return self.unnamed.get((call["pid"], int(fd))) if fd not in (None, "AT_FDCWD") else None

    def apply(self, call, step):
        n, a, ret = call["name"], call["args"], call["ret"]
        if ret < 0:
            return
        if self.apply_unnamed(call, step):
            return
        if n in ("open", "openat", "creat"):
            path = call["retpath"]
            if n == "creat":
                flags = "O_CREAT|O_WRONLY|O_TRUNC"
            else:
                flags = a[1] if n == "open" else a[2]
            if path is None:
                path = self.resolve(a[0] if n == "openat" else None, a[1] if n == "openat" else a[0])
            rel = self.rel(path)
            if rel is None:
                return
            self.positions[(call["pid"], ret)] = 0
            ino = self.lookup(rel)
            if ino is None and "O_CREAT" in flags:
                modearg = a[3] if n == "openat" and len(a) > 3 else (a[2] if len(a) > 2 else "0600")
                mode = int(modearg, 8) if modearg.startswith("0") else 0o600
                ino = self.create(rel, "file", call, step, mode=mode & 0o7777)
            elif ino is not None and "O_TRUNC" in flags and self.inodes[ino].kind == "file" \
                    and len(self.inodes[ino].data) > 0:
                self.data(ino, 0, None, call, step, size=0)
            if ino is not None and "O_APPEND" in flags:
                self.positions[(call["pid"], ret)] = None
            return
        if n in ("close",):
            self.positions.pop((call["pid"], number(a[0])), None)
            return
        if n in ("dup", "dup2", "dup3", "fcntl"):
            return
        if n == "lseek":
            fd = number(a[0])
            self.positions[(call["pid"], fd)] = ret
            return
        if n in ("write", "pwrite64", "writev", "pwritev", "pwritev2"):
            fd, path = fd_arg(a[0])
            rel = self.rel(path)
            if rel is None or path.endswith(" (deleted)"):
                return
            ino = self.lookup(rel)
            if ino is None or self.inodes[ino].kind != "file":
                return
            payload = string_arg(a[1]) if n in ("write", "pwrite64") else iovec_bytes(a[1])
            payload = payload[:ret]
            key = (call["pid"], int(fd))
            if n in ("pwrite64", "pwritev", "pwritev2"):
                offset = number(a[3])
            else:
                offset = self.positions.get(key, 0)
                if offset is None:
                    offset = len(self.inodes[ino].data)
                self.positions[key] = offset + len(payload) if self.positions.get(key, 0) is not None else None
            self.data(ino, offset, payload, call, step)
            return
        if n in ("ftruncate", "truncate", "fallocate"):
            if n == "truncate":
                rel = self.rel(self.resolve(None, a[0]))
            else:
                rel = self.rel(fd_arg(a[0])[1])
            ino = self.lookup(rel) if rel is not None else None
            if ino is None:
                return
            if n == "fallocate":
                if a[1] != "0":
                    return  # keep-size and punch-hole modes change no size the model knows
                size = max(len(self.inodes[ino].data), number(a[2]) + number(a[3]))
            else:
                size = number(a[1])
            self.data(ino, 0, None, call, step, size=size)
            return
        if n in ("copy_file_range", "sendfile"):
            src = self.rel(fd_arg(a[0])[1])
            dst = self.rel(fd_arg(a[2] if n == "copy_file_range" else a[0])[1])
            if n == "sendfile":
                src, dst = self.rel(fd_arg(a[1])[1]), self.rel(fd_arg(a[0])[1])
            if dst is None:
                return
            si, di = self.lookup(src) if src is not None else None, self.lookup(dst)
            if di is None:
                return
            if n == "copy_file_range":
                soff = entry_offset(a[1]) if a[1] != "NULL" else self.positions.get((call["pid"], int(fd_arg(a[0])[0])), 0)
                doff = entry_offset(a[3]) if a[3] != "NULL" else self.positions.get((call["pid"], int(fd_arg(a[2])[0])), 0)
                payload = bytes(self.inodes[si].data[soff:][:ret]) if si else b"\0" * ret
                if a[3] == "NULL":
                    self.positions[(call["pid"], int(fd_arg(a[2])[0]))] = doff + ret
                self.data(di, doff, payload, call, step)
            else:
                raise ValueError("sendfile into the spool: not modelled")
            return
        if n in ("rename", "renameat", "renameat2"):
            if n == "rename":
                old, new = self.resolve(None, a[0]), self.resolve(None, a[1])
            else:
                old, new = self.resolve(a[0], a[1]), self.resolve(a[2], a[3])
            ro, rn = self.rel(old), self.rel(new)
            if ro is None or rn is None:
                if rn is not None or ro is not None:
                    raise ValueError(f"a rename across the spool's edge: {call['line']}")
                return
            if n == "renameat2" and "RENAME_EXCHANGE" in a[4]:
                raise ValueError("RENAME_EXCHANGE: not modelled")
            ino = self.lookup(ro)
            sd, sn = self.parent(ro)
            dd, dn = self.parent(rn)
            replaced = self.entries.get((dd, dn))
            if replaced is not None and self.inodes[replaced].kind == "dir":
                self._move_paths(rn, "\0gone")
                self.paths = {p: i for p, i in self.paths.items() if not p.startswith("\0gone")}
            del self.entries[(sd, sn)]
            self.entries[(dd, dn)] = ino
            self._move_paths(ro, rn)
            self._emit(("rename", sd, sn, dd, dn, ino, replaced), call, step)
            return
        if n in ("link", "linkat"):
            old, new = (self.resolve(None, a[0]), self.resolve(None, a[1])) if n == "link" else \
                (self.resolve(a[0], a[1]), self.resolve(a[2], a[3]))
            ro, rn = self.rel(old), self.rel(new)
            if ro is None or rn is None:
                return
            ino = self.lookup(ro)
            d, name = self.parent(rn)
            self.entries[(d, name)] = ino
            self.paths[rn] = ino
            self._emit(("link", d, name, ino), call, step)
            return
        if n in ("unlink", "unlinkat", "rmdir"):
            path = self.resolve(None, a[0]) if n != "unlinkat" else self.resolve(a[0], a[1])
            rel = self.rel(path)
            if rel is None:
                return
            ino = self.lookup(rel)
            d, name = self.parent(rel)
            if ino is None or d is None:
                return
            del self.entries[(d, name)]
            self._move_paths(rel, "\0gone")
            self.paths = {p: i for p, i in self.paths.items() if not p.startswith("\0gone")}
            self._emit(("unlink", d, name, ino), call, step)
            return
        if n in ("mkdir", "mkdirat"):
            path = self.resolve(None, a[0]) if n == "mkdir" else self.resolve(a[0], a[1])
            rel = self.rel(path)
            if rel is None:
                return
            modearg = a[1] if n == "mkdir" else a[2]
            self.create(rel, "dir", call, step, mode=int(modearg, 8) & 0o7777)
            return
        if n in ("mknod", "mknodat"):
            # A regular file made empty (an add's or an item add's job file); farm makes no other kind.
            path = self.resolve(None, a[0]) if n == "mknod" else self.resolve(a[0], a[1])
            modearg = a[1] if n == "mknod" else a[2]
            rel = self.rel(path)
            if rel is None or "S_IFREG" not in modearg:
                return
            digits = modearg.split("|")[-1]
            self.create(rel, "file", call, step, mode=int(digits, 8) & 0o7777 if digits.startswith("0") else 0o644)
            return
        if n in ("symlink", "symlinkat"):
            target = string_arg(a[0]).decode("utf-8", "surrogateescape")
            path = self.resolve(None, a[1]) if n == "symlink" else self.resolve(a[1], a[2])
            rel = self.rel(path)
            if rel is None:
                return
            self.create(rel, "link", call, step, mode=0o777, target=target)
            return
        if n in ("setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr"):
            rel = self.rel(fd_arg(a[0])[1] if n.startswith("f") else self.resolve(None, a[0]))
            ino = self.lookup(rel) if rel is not None else None
            if ino is None:
                return
            name = string_arg(a[1]).decode()
            if "remove" in n:
                self.inodes[ino].xattrs.pop(name, None)
                self._emit(("xattr", ino, name, None), call, step)
            else:
                value = string_arg(a[2])[: number(a[3])]
                self.inodes[ino].xattrs[name] = value
                self._emit(("xattr", ino, name, value), call, step)
            return
        if n in ("fsync", "fdatasync", "syncfs", "sync_file_range"):
            rel = self.rel(fd_arg(a[0])[1])
            if rel is None:
                return
            if n == "syncfs":
                self._emit(("syncfs", None, rel), call, step)
                return
            ino = self.lookup(rel)
            if ino is None:
                return
            # sync_file_range promises nothing across a power cut (the man page: no metadata, no disk cache
            # flush), but on ext4 it orders: the bytes it wrote back are on disk before any later journal
            # commit (crashmodel's "srange").
            self._emit(("srange" if n == "sync_file_range" else n, ino, rel), call, step)
            return
        if n == "sync":
            self._emit(("syncfs", None, None), call, step)
