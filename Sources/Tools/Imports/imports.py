#!/usr/bin/env python3
"""Package.swift says what the code imports (issue 63, goal 4), for bin/imports.

Every `import` in a target's Swift files of a module this package builds or declares (its own targets, and the
products of its dependencies that some target declares) must be a dependency that target declares itself.
SwiftPM's `--explicit-target-dependency-import-check error`, which bin/test also builds with, lets through an
import of a module the target only reaches through another (FarmMetricsPage importing FarmJSON, reached through
FarmSpool): the code then leans on a dependency of a dependency, and breaks when that one changes.

It also keeps the layers of Sources/README.md: no front end (FarmControl, FarmTop, FarmServe, FarmRPC,
FarmStatus) links a role (worker, watcher, follower, supervisor), even through another target, and no role
links another; only the `farm` executable links them all, to fill in the roles' table.

Use: python3 imports.py [DUMP.json]; without a file it runs `swift package dump-package` in the current folder
(the package's root). Prints one line per finding and a count; exits 1 when there is any.
"""
import glob
import json
import os
import re
import subprocess
import sys

ROLES = {"FarmWorker", "FarmWatcher", "FarmFollower", "FarmSupervisor"}
FRONT_ENDS = {"FarmControl", "FarmTop", "FarmServe", "FarmRPC", "FarmStatus"}
IMPORT = re.compile(r"\s*(?:@\w+\s+|(?:public|package|internal|private|fileprivate)\s+)*"
                    r"import\s+(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?(\w+)")


def declared(target):
    """The names of the targets and products `target` depends on itself."""
    names = set()
    for dependency in target["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.add(dependency[kind][0])
    return names


def folder(target):
    if target.get("path"):
        return target["path"]
    return os.path.join("Tests" if target["type"] == "test" else "Sources", target["name"])


def imports(target):
    modules = set()
    for path in glob.glob(os.path.join(folder(target), "**", "*.swift"), recursive=True):
        with open(path, errors="replace") as file:
            for line in file:
                match = IMPORT.match(line)
                if match:
                    modules.add(match.group(1))
    return modules


def main():
    if len(sys.argv) > 1:
        with open(sys.argv[1]) as file:
            package = json.load(file)
    else:
        package = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True,
                                            capture_output=True, text=True).stdout)
    targets = {target["name"]: target for target in package["targets"]}
    products = {dependency["product"][0] for target in targets.values() for dependency in target["dependencies"]
                if "product" in dependency}
    known = set(targets) | products
    findings = []
    for name, target in sorted(targets.items()):
        if target["type"] in ("system", "binary", "plugin", "macro"):
            continue
        missing = (imports(target) & known) - declared(target) - {name}
        if missing:
            findings.append(f"{name} imports {', '.join(sorted(missing))}, which Package.swift does not declare")

    def linked(name, seen):
        for dependency in declared(targets[name]) if name in targets else ():
            if dependency not in seen:
                seen.add(dependency)
                linked(dependency, seen)
        return seen

    for name in sorted(FRONT_ENDS | ROLES):
        if name in targets:
            roles = linked(name, set()) & (ROLES - {name})
            if roles:
                findings.append(f"{name} links {', '.join(sorted(roles))}: "
                                + ("a front end links no role" if name in FRONT_ENDS else "no role links another"))
    for finding in findings:
        print(finding)
    print(f"imports of {package['name']}: {len(findings)} found")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
