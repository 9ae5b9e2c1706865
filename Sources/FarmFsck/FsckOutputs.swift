import FarmDedup
import FarmJSON
import FarmLists
import FarmSpool
import FarmSystem

// The outputs of fsck (see SpoolCheck.swift): every output a done job's outcome names is there, and no job
// that is not done has any.
extension FsckRun {
    /// The suffixes of the outputs a worker makes of `files/<list>/<index>` (the download, a rendered
    /// page, the thumbnail, an unpacked ZIP), one bit each in `FsckList.outputs`.
    static let outputSuffixes = [".jpg", ".png", ".pdf", ".zip", ".page1.png", ".thumb.png", ".unzipped"]
    private static let suffixBits = Dictionary(uniqueKeysWithValues: outputSuffixes.enumerated().map {
        ($1, UInt16(1) << UInt16($0))
    })

    /// What a job with outputs that is not done is.
    private enum StrayState: String {
        case queued, failed = "failed without a download", lost = "in no state", removed = "removed from its list"
    }

    /// Reads files/ (one listing of each list's folder) and checks each job's outputs against its state.
    func checkOutputs() throws(SpoolError) {
        for entry in try entries(spool.files) {
            let path = spool.path(.files, entry.name)
            guard entry.isDirectory, ListID.isValid(entry.name) else {
                foreign(path, "not a list's output folder")
                continue
            }
            if lists[entry.name] == nil {
                unknown[entry.name, default: []].append(
                    (path, nil, "the outputs of list \(entry.name), which the spool does not have"))
            }
        }
        for list in lists.values {
            guard let total = list.total else { continue }
            let directory = spool.outputDirectory(ofList: list.id)
            try readOutputs(of: list, in: directory, total: total)
            var strays: [(index: Int, state: StrayState)] = []
            for index in 0..<total {
                let hasOutputs = list.outputs[index] != 0 || list.otherOutputs[index] != nil
                if list.removed?.contains(index) == true {
                    // Its job, if any, is reported as removed: its purge takes the outputs too.
                    if hasOutputs && list.seen[index] == 0 { strays.append((index, .removed)) }
                    continue
                }
                switch list.seen[index] {
                case FsckList.done:
                    checkDone(JobName(list: list.id, index: index), of: list, in: directory)
                case FsckList.failed where hasOutputs && !keepsDownload(JobName(list: list.id, index: index)):
                    strays.append((index, .failed))
                case FsckList.queued where hasOutputs:
                    strays.append((index, .queued))
                case 0 where hasOutputs:
                    strays.append((index, .lost))
                default:
                    continue  // active (its owner is making them), or doubled (settled first)
                }
            }
            for stray in strays { reportStray(JobName(list: list.id, index: stray.index), stray.state, of: list) }
        }
    }

    /// Notes which outputs files/<list>/ holds, by index; reports what is no output, and temporaries.
    private func readOutputs(of list: FsckList, in directory: String, total: Int) throws(SpoolError) {
        list.outputs = [UInt16](repeating: 0, count: total)
        for entry in try entries(directory) {
            let path = directory + "/" + entry.name
            if let writer = AtomicFile.writer(ofTemporary: entry.name) {
                checkTemporary(path, writer: writer)
                continue
            }
            if Lists.isCoverName(entry.name), list.record?.paged?.listCover != nil { continue }
            guard let (index, suffix) = Self.outputName(entry.name) else {
                foreign(path, "not a resource's output")
                continue
            }
            guard index < total else {
                foreign(path, "an output of resource \(index), past the end of its list (\(total) resource(s))")
                continue
            }
            if let bit = Self.suffixBits[suffix] { list.outputs[index] |= bit } else {
                list.otherOutputs[index, default: []].append(entry.name)
            }
            if entry.isDirectory { try checkTemporaries(under: path) }
        }
    }

    /// The temporaries under `directory` (an unpacked ZIP), at any depth.
    private func checkTemporaries(under directory: String) throws(SpoolError) {
        for entry in try entries(directory) {
            let path = directory + "/" + entry.name
            if let writer = AtomicFile.writer(ofTemporary: entry.name) {
                checkTemporary(path, writer: writer)
            } else if entry.isDirectory {
                try checkTemporaries(under: path)
            }
        }
    }

    /// The index and suffix of an output's name (`3.thumb.png`: 3 and `.thumb.png`); nil for other names.
    private static func outputName(_ name: String) -> (index: Int, suffix: String)? {
        guard let dot = name.firstIndex(of: "."), case let digits = name[..<dot], !digits.isEmpty,
              digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let index = Int(digits), String(index) == digits
        else { return nil }
        return (index, String(name[dot...]))
    }

    /// The names of the outputs of resource `index` of `list` as files/<list>/ held them.
    func outputNames(of list: FsckList, _ index: Int) -> [String] {
        guard index < list.outputs.count else { return [] }
        var names = list.otherOutputs[index] ?? []
        for (bit, suffix) in Self.outputSuffixes.enumerated() where list.outputs[index] & (1 << UInt16(bit)) != 0 {
            names.append(String(index) + suffix)
        }
        return names
    }

    /// Deletes the outputs of `job`, whose URL is `url` when known (as files/<list>/ held them when it
    /// was read).
    func deleteOutputs(of job: JobName, url: String?) throws(SpoolError) {
        guard let list = lists[job.list] else { return }
        let directory = spool.outputDirectory(ofList: job.list)
        for name in outputNames(of: list, job.index) {
            do { try Dedup(spool).removeOutput(directory + "/" + name, url: url) } catch {
                throw SpoolError(.io, "cannot delete \(directory)/\(name)", cause: error)
            }
        }
    }

    /// Checks that every output the outcome record of the done `job` names is there.
    private func checkDone(_ job: JobName, of list: FsckList, in directory: String) {
        let path = spool.finishedPath(job, .done)
        guard let outcome = outcome(of: job, at: path) else {
            guard FileSystem.exists(path) else { return }  // sent back to the queue meanwhile
            found(.noOutcome, path, job: job, "done job \(job) has no outcome record: what it made is unknown",
                  unrepairable: "`farm reload` fetches its list again", repair: nil)
            return
        }
        var named: [String] = []
        for case let output? in [outcome.file, outcome.image, outcome.thumb] where !named.contains(output) {
            named.append(output)
        }
        let missing = named.filter { !isPresent($0, of: list, in: directory) }
        if missing.isEmpty {
            checkUnchanged(job, outcome, at: path, of: list)
            return
        }
        // Looked at again: a reload may have taken the job (and its outputs) meanwhile.
        guard FileSystem.exists(path), missing.allSatisfy({ !FileSystem.exists($0) }) else { return }
        let detail = "done job \(job) lost " + missing.map(relative).joined(separator: ", ")
        guard missing.allSatisfy({ $0.hasPrefix(directory + "/") }) else {
            found(.missingOutput, path, job: job, detail, unrepairable: "its outcome names files outside this spool",
                  repair: nil)
            return
        }
        found(.missingOutput, path, job: job, detail) { [self] () throws(SpoolError) in
            guard FileSystem.exists(path) else { return .skipped("it is no longer done") }
            return try Lists(spool).redo(path, job: job, outputs: outputNames(of: list, job.index), lost: true)
                ? .made : .skipped("it is no longer done")
        }
    }

    /// Checks that the download of the done `job` is what its outcome recorded: its size, and where a digest
    /// of its bytes is kept (the list item's `sha256`, or the `user.farm.sha256` a stored file keeps once
    /// compared), its SHA-256. Bytes are read only where a digest is kept: fsck does not hash every
    /// download. No repair: the bytes may be the user's edit through a `--link` delivery, which a download
    /// again would replace; `farm reload` fetches the list again.
    private func checkUnchanged(_ job: JobName, _ outcome: Sidecar, at path: String, of list: FsckList) {
        guard let file = outcome.file, let recorded = outcome.size ?? (outcome.status == .done ? outcome.bytes : nil),
              let st = try? FileSystem.stat(file), st.type == .regular else { return }
        var change: String?
        if Int(st.size) != recorded {
            change = "is \(st.size) bytes, its record says \(recorded)"
        } else if let kept = (try? FileSystem.attribute(file, Dedup.digestAttribute, limit: 128))
                    .map({ String(decoding: $0, as: UTF8.self) }) ?? itemDigest(job, of: list),
                  let digest = try? Dedup.digest(ofFile: file), digest != kept {
            change = "has SHA-256 \(digest), not the \(kept) kept for it"
        }
        guard let change else { return }
        // Looked at again: a sync's new version or a reload may have replaced it (and its record) meanwhile.
        guard let now = self.outcome(of: job, at: path), now.file == outcome.file, now.size == outcome.size,
              now.changed == outcome.changed else { return }
        found(.changedOutput, file, job: job, "the download of done job \(job), \(relative(file)), \(change): "
                + "written in place since it was done (a --link delivery edited?)",
              unrepairable: "its bytes may be an edit of yours; `farm reload \(list.record?.name ?? job.list)` "
                + "downloads the list again", repair: nil)
    }

    /// The SHA-256 the list's item gave resource `job` (SPEC §12's checksums), if it gave one.
    private func itemDigest(_ job: JobName, of list: FsckList) -> String? {
        if list.items == nil { list.items = spool.lists.resources(ofList: list.id).map { $0.map(\.sha256) } ?? [] }
        guard let items = list.items, job.index < items.count else { return nil }
        return items[job.index]
    }

    /// The outcome record of `job`, finished at `path`: on the job file, else in progress/.
    private func outcome(of job: JobName, at path: String) -> Sidecar? {
        guard let bytes = spool.sidecars.outcome(atPath: path) ?? (try? FileSystem.readFile(spool.sidecars.path(job)))
        else { return nil }
        return JSON.decode(Sidecar.self, from: bytes)
    }

    /// Whether the failed `job` keeps its download: its conversion failed, and what it left is its to show.
    private func keepsDownload(_ job: JobName) -> Bool {
        outcome(of: job, at: spool.finishedPath(job, .failed))?.file != nil
    }

    /// Whether the output at `path` is there: looked up in the listing of its list's folder when it is
    /// in it, else looked at.
    private func isPresent(_ path: String, of list: FsckList, in directory: String) -> Bool {
        if path.hasPrefix(directory), path.utf8.dropFirst(directory.utf8.count).first == UInt8(ascii: "/") {
            let name = String(path.dropFirst(directory.count + 1))
            if !name.contains("/"), let (index, suffix) = Self.outputName(name), index < list.outputs.count {
                if let bit = Self.suffixBits[suffix] { return list.outputs[index] & bit != 0 }
                return list.otherOutputs[index]?.contains(name) == true
            }
        }
        return FileSystem.exists(path)
    }

    /// Reports each output of `job`, which is `state` and not done, unless a fresh look finds the job
    /// claimed or finished since (its outputs are then its owner's, or its outcome's).
    private func reportStray(_ job: JobName, _ state: StrayState, of list: FsckList) {
        if isClaimedOrDone(job) { return }
        if state != .failed && FileSystem.exists(spool.finishedPath(job, .failed)) { return }
        let directory = spool.outputDirectory(ofList: list.id)
        for name in outputNames(of: list, job.index) {
            let path = directory + "/" + name
            found(.strayOutput, path, job: job, "an output of job \(job), which is \(state.rawValue)") {
                [self] () throws(SpoolError) in
                // Looked at just before: a claim made since has not stored anything yet.
                guard !isClaimedOrDone(job) else { return .skipped("the job was claimed meanwhile") }
                let url = Lists(spool).place(of: job).flatMap(spool.jobURL)
                do { try Dedup(spool).removeOutput(path, url: url) } catch {
                    throw SpoolError(.io, "cannot delete \(path)", cause: error)
                }
                return .made
            }
        }
    }
}
