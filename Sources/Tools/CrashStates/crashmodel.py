"""Every state a crash may leave: the model (its sources and rules are in crashstates.py's header).

Given the tree before a window of steps and the operations they made (fsmodel.py), `states(k)` yields, for a
crash after the k-th operation, every set of operations the disk may have kept: those the syncs before k made
durable (and what they need), then any prefix of the rest of the metadata operations in program order, and
for each file any prefix of its data operations not yet synced. `materialize` builds the tree of one state.
"""
import hashlib
import itertools
import os
import random

META = ("create", "rename", "link", "unlink", "xattr")

DATA_COMBINATIONS = 8  # the most combinations of files' data prefixes tried at one metadata prefix


class Window:
    def __init__(self, tree, ops, recorded_inodes, absent=frozenset(), model="posix"):
        """`ops`: the operations in order (dicts with "op"); `recorded_inodes`: every inode as the real run
        left it (what each created one is); `absent`: indices of syncs the model ignores."""
        self.tree = tree
        self.ops = ops
        self.recorded_inodes = recorded_inodes
        self.model = model
        self.absent = absent
        self.deps = self._dependencies()

    def _dependencies(self):
        """For each metadata operation, the earlier ones it cannot reach the disk without: the last one that
        set or cleared each entry it touches (one name's changes stay in order), and for a directory removed,
        every earlier change inside it (it was empty)."""
        deps = {}
        last = {}
        inside = {}
        for i, o in enumerate(self.ops):
            op = o["op"]
            if op[0] not in META:
                continue
            keys = []
            if op[0] in ("create", "link", "unlink"):
                keys = [(op[1], op[2])]
            elif op[0] == "rename":
                keys = [(op[1], op[2]), (op[3], op[4])]
            elif op[0] == "xattr":
                keys = [("inode", op[1])]
            d = set(last[k] for k in keys if k in last)
            if op[0] == "unlink" and self.tree_kind(op[3], i) == "dir":
                d |= inside.get(op[3], set())
            # an inode's own changes (its extended attributes, its names) stay in order with its creation
            ino = op[3] if op[0] in ("create", "link", "unlink") else (op[5] if op[0] == "rename" else op[1])
            if ("made", ino) in last:
                d.add(last[("made", ino)])
            deps[i] = d
            for k in keys:
                last[k] = i
            if op[0] == "create":
                last[("made", op[3])] = i
            for dirino in ([op[1]] if op[0] in ("create", "link", "unlink") else
                           [op[1], op[3]] if op[0] == "rename" else []):
                inside.setdefault(dirino, set()).add(i)
        return deps

    def tree_kind(self, ino, _):
        node = self.tree.inodes.get(ino) or self.recorded_inodes.get(ino)
        return node.kind if node else None

    def close(self, chosen):
        todo = list(chosen)
        out = set(chosen)
        while todo:
            i = todo.pop()
            for d in self.deps.get(i, ()):
                if d not in out:
                    out.add(d)
                    todo.append(d)
        return out

    def forced(self, k):
        """What the syncs among the first k operations made durable: (metadata set, {ino: data ops count})."""
        meta, data = set(), {}
        for s in range(k):
            if s in self.absent:
                continue
            op = self.ops[s]["op"]
            if op[0] == "syncfs":
                meta |= {i for i in range(s) if self.ops[i]["op"][0] in META}
                for i in range(s):
                    if self.ops[i]["op"][0] == "data":
                        data[self.ops[i]["op"][1]] = max(data.get(self.ops[i]["op"][1], -1), i)
            elif op[0] in ("fsync", "fdatasync"):
                ino = op[1]
                if self.model == "ext4":
                    # jbd2 commits the running transaction, which holds every earlier metadata change
                    meta |= {i for i in range(s) if self.ops[i]["op"][0] in META}
                for i in range(s):
                    o = self.ops[i]["op"]
                    if o[0] == "data" and o[1] == ino:
                        data[ino] = max(data.get(ino, -1), i)
                    # fsync of a directory: its entries' changes (a rename: either end's directory)
                    elif o[0] in ("create", "link", "unlink") and o[1] == ino:
                        meta.add(i)
                    elif o[0] == "rename" and ino in (o[1], o[3]):
                        meta.add(i)
                    elif op[0] == "fsync" and o[0] == "xattr" and o[1] == ino:
                        meta.add(i)
        return meta, data

    def states(self, k, rng):
        """Yields (kept metadata indices, {ino: index of the last data op kept or -1}) for a crash after op k."""
        meta_forced, data_forced = self.forced(k)
        meta_forced = self.close(meta_forced)
        if self.model == "ext4" and meta_forced:
            # strictly ordered metadata: what reached the disk is a prefix of every metadata change
            last = max(meta_forced)
            meta_forced = {i for i in range(last + 1) if self.ops[i]["op"][0] in META}
        free = [i for i in range(k) if self.ops[i]["op"][0] in META and i not in meta_forced]
        data_ops = {}
        for i in range(k):
            o = self.ops[i]["op"]
            if o[0] == "data":
                data_ops.setdefault(o[1], []).append(i)
        for p in range(len(free) + 1):
            kept = meta_forced | set(free[:p])
            # ext4's auto_da_alloc: a rename over an existing file writes the renamed file's data first.
            floor = dict(data_forced)
            # ext4: sync_file_range wrote its file's bytes back and waited, so a journal commit after it (any
            # metadata change after it that was kept) holds them on disk.
            if self.model == "ext4" and kept:
                newest = max(kept)
                for s in range(min(k, newest)):
                    o = self.ops[s]["op"]
                    if o[0] == "srange" and s not in self.absent:
                        for j in data_ops.get(o[1], []):
                            if j < s:
                                floor[o[1]] = max(floor.get(o[1], -1), j)
            for i in kept:
                o = self.ops[i]["op"]
                if o[0] == "rename" and o[6] is not None:
                    for j in data_ops.get(o[5], []):
                        if j < i:
                            floor[o[5]] = max(floor.get(o[5], -1), j)
            choices = []
            for ino, idxs in sorted(data_ops.items()):
                opts = [-1] + idxs
                low = floor.get(ino, -1)
                opts = [x for x in opts if x >= low]
                if len(opts) > 1:
                    choices.append((ino, opts))
            base = {ino: max(idxs) for ino, idxs in data_ops.items()}
            for combo in combinations(choices, rng):
                data = dict(base)
                data.update(combo)
                yield kept, data

    def restore(self, k, kept, data):
        """The state (`kept`, `data`) of a window that lacks a sync, with what this window's syncs before op k make
        durable added, and what that needs: the same crash with the sync in place. A finding that this state
        shows too is not the absent sync's."""
        meta, forced = self.forced(k)
        kept = self.close(set(kept) | meta)
        if self.model == "ext4" and meta:
            kept |= {i for i in range(max(meta) + 1) if self.ops[i]["op"][0] in META}
        data = dict(data)
        for ino, last in forced.items():
            data[ino] = max(data.get(ino, -1), last)

        def floor(ino, before):
            for j in range(before):
                o = self.ops[j]["op"]
                if o[0] == "data" and o[1] == ino:
                    data[ino] = max(data.get(ino, -1), j)
        # As states() has it: on ext4 a sync_file_range's bytes are kept once a later metadata change is, and a
        # rename over a file kept keeps the renamed file's data first (auto_da_alloc).
        if self.model == "ext4" and kept:
            for s in range(min(k, max(kept))):
                o = self.ops[s]["op"]
                if o[0] == "srange" and s not in self.absent:
                    floor(o[1], s)
        for i in kept:
            o = self.ops[i]["op"]
            if o[0] == "rename" and o[6] is not None:
                floor(o[5], i)
        return kept, data

    def materialize_plan(self, kept, data):
        """The tree a state leaves: entries and inodes after the kept operations, in order."""
        inodes = {k: [v.kind, bytearray(v.data), v.target, v.mode, dict(v.xattrs)] for k, v in self.tree.inodes.items()}
        entries = dict(self.tree.entries)
        root = self.tree.root
        for i, o in enumerate(self.ops):
            op = o["op"]
            if op[0] == "create":
                node = self.recorded_inodes[op[3]]
                if op[3] not in inodes:
                    inodes[op[3]] = [node.kind, bytearray(), node.target, node.mode, {}]
                if i in kept and op[1] is not None:
                    entries[(op[1], op[2])] = op[3]
            elif op[0] == "data":
                if i > data.get(op[1], -1):
                    continue
                node = inodes.get(op[1])
                if node is None:
                    continue
                buf = node[1]
                if op[3] is not None:
                    if len(buf) < op[2]:
                        buf.extend(b"\0" * (op[2] - len(buf)))
                    buf[op[2]:op[2] + len(op[3])] = op[3]
                elif op[4] < len(buf):
                    del buf[op[4]:]
                else:
                    buf.extend(b"\0" * (op[4] - len(buf)))
            elif i not in kept:
                continue
            elif op[0] == "rename":
                if entries.get((op[1], op[2])) == op[5]:
                    del entries[(op[1], op[2])]
                entries[(op[3], op[4])] = op[5]
            elif op[0] == "link":
                entries[(op[1], op[2])] = op[3]
            elif op[0] == "unlink":
                if entries.get((op[1], op[2])) == op[3]:
                    del entries[(op[1], op[2])]
            elif op[0] == "xattr":
                node = inodes.get(op[1])
                if node is not None:
                    if op[3] is None:
                        node[4].pop(op[2], None)
                    else:
                        node[4][op[2]] = op[3]
        rootexists = root in self.tree.inodes and (self.tree.entries or self.tree.root != "b-root")
        rootexists = rootexists or any(self.ops[i]["op"][0] == "create" and self.ops[i]["op"][1] is None
                                       for i in kept)
        return root if rootexists else None, entries, inodes

    def fingerprint(self, plan):
        root, entries, inodes = plan
        h = hashlib.sha256()
        if root is None:
            return "none"
        children = {}
        for (d, name), ino in entries.items():
            children.setdefault(d, []).append((name, ino))
        seen = {}

        def walk(ino, path):
            node = inodes[ino]
            first = seen.setdefault(ino, path)
            h.update(f"{path}\0{node[0]}\0{oct(node[3])}\0{node[2]}\0{first}\0".encode())
            if first != path:
                return
            h.update(hashlib.sha256(bytes(node[1])).digest())
            for k in sorted(node[4]):
                h.update(k.encode() + b"=" + node[4][k])
            if node[0] == "dir":
                for name, child in sorted(children.get(ino, [])):
                    walk(child, path + "/" + name)
        walk(root, "")
        return h.hexdigest()


def combinations(choices, rng):
    """Data prefixes to try: every combination when few, else each file alone at each end, the others all
    kept and none kept, and random ones."""
    if not choices:
        yield {}
        return
    total = 1
    for _, opts in choices:
        total *= len(opts)
        if total > DATA_COMBINATIONS:
            break
    if total <= DATA_COMBINATIONS:
        for combo in itertools.product(*[opts for _, opts in choices]):
            yield {ino: x for (ino, _), x in zip(choices, combo)}
        return
    seen = set()
    picks = [{ino: opts[-1] for ino, opts in choices}, {ino: opts[0] for ino, opts in choices}]
    for ino, opts in choices:
        picks.append({i: (opts[0] if i == ino else o[-1]) for i, o in choices})
    while len(picks) < DATA_COMBINATIONS * 2:
        picks.append({ino: rng.choice(opts) for ino, opts in choices})
    for p in picks:
        key = tuple(sorted(p.items()))
        if key in seen:
            continue
        seen.add(key)
        yield p
        if len(seen) >= DATA_COMBINATIONS:
            return


def write_tree(plan, path):
    """Writes a state's tree at `path` (which must not exist): files, links between names, xattrs, modes."""
    root, entries, inodes = plan
    if root is None:
        return
    children = {}
    for (d, name), ino in entries.items():
        children.setdefault(d, []).append((name, ino))
    first = {}

    def walk(ino, p):
        node = inodes[ino]
        if ino in first and node[0] != "dir":
            os.link(first[ino], p)
            return
        first[ino] = p
        if node[0] == "dir":
            os.mkdir(p, 0o700)
            for name, child in sorted(children.get(ino, [])):
                if child in first and inodes[child][0] == "dir":
                    continue  # a directory reachable twice (a rename kept, its source's removal not): once
                walk(child, p + "/" + name)
            os.chmod(p, node[3] or 0o700)
        elif node[0] == "link":
            os.symlink(node[2], p)
            return
        elif node[0] == "file":
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                # Blocks of zeros are left holes: bytes the disk never got read as a hole (SEEK_HOLE), which
                # is how the farm tells them (FileSystem.dataEnd); the origin's bytes have no such block.
                data = bytes(node[1])
                for at in range(0, len(data), 4096):
                    block = data[at:at + 4096]
                    if block.count(0) != len(block):
                        os.pwrite(fd, block, at)
                os.ftruncate(fd, len(data))
            finally:
                os.close(fd)
            os.chmod(p, node[3] or 0o600)
        else:
            return
        for k, v in node[4].items():
            os.setxattr(p, k, v, follow_symlinks=False)
    walk(root, path)


def self_check():
    """The model on a made-up step (a file staged, written, synced, renamed into place, its folder synced):
    the problems found in the model itself, none when it holds. No farm, no disk: `--self-check`."""
    import fsmodel
    tree = fsmodel.Tree()
    tree.root = "r"
    tree.inodes = {"r": fsmodel.Inode("dir"), "d": fsmodel.Inode("dir")}
    tree.entries = {("r", "d"): "d"}
    made = {"n1": fsmodel.Inode("file", b"hello")}
    ops = [{"op": o} for o in [("create", "d", "t", "n1"), ("data", "n1", 0, b"hello", None),
                               ("fsync", "n1", "d/t"), ("rename", "d", "t", "d", "f", "n1", None),
                               ("fsync", "d", "d")]]
    problems = []

    def finals(absent, model, k=len(ops)):
        win = Window(tree, ops, made, frozenset(absent), model)
        out = set()
        for kept, data in win.states(k, random.Random(0)):
            _, entries, inodes = win.materialize_plan(kept, data)
            out.add(tuple(sorted((name, bytes(inodes[i][1])) for (d, name), i in entries.items() if d == "d")))
        return out

    for model in ("posix", "ext4"):
        if finals((), model) != {(("f", b"hello"),)}:
            problems.append(f"{model}: with both syncs the renamed file is not always whole: {finals((), model)}")
        if (("t", b""),) not in finals((), model, k=2) or () not in finals((), model, k=2):
            problems.append(f"{model}: before any sync, the staged file may be absent or empty")
    if (("t", b"hello"),) not in finals({4}, "posix"):
        problems.append("posix: without the folder's sync, the rename may be lost")
    if finals({4}, "ext4") != {(("t", b"hello"),), (("f", b"hello"),)}:
        problems.append(f"ext4: without the folder's sync, the rename is kept or not: {finals({4}, 'ext4')}")
    if (("f", b""),) not in finals({2, 4}, "posix"):
        problems.append("posix: without the file's sync, the rename may be kept and not the bytes")
    return problems
