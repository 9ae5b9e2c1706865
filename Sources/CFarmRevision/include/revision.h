// CFarmRevision: the git revision farm was built from, for `farm --version`. A C target because only C
// takes a value from the build: Package.swift defines FARM_REVISION here, and here alone, from the
// environment of `swift build` (bin/setup and bin/package set it), so a new revision recompiles one file.
#ifndef CFARM_REVISION_H
#define CFARM_REVISION_H

/// The revision (`git rev-parse --short=12 HEAD`, `-dirty` when the tree had changes), or "unknown"
/// when the build was given none (a plain `swift build`).
const char *cfarm_revision(void);

#endif
