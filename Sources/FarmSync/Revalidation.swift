import FarmConvert
import FarmDedup
import FarmLists
import FarmSpool
import FarmSystem
import FarmTransfer
import Dispatch
import FoundationEssentials
import SystemPackage

/// Step 4 of a sync (see ListSync.swift): every done resource of a list revalidated by a conditional GET
/// (`If-None-Match` with its ETag, else `If-Modified-Since` with its Last-Modified), `concurrency` at a
/// time, each thread over its own curl handle so its connection is kept alive. A resource without a
/// validator counts as unchanged and is not fetched. Made and run by one thread, which waits for its own.
struct Revalidation {
    let spool: Spool
    let concurrency: Int
    let limits: Limits
    let progress: (_ done: Int, _ total: Int) -> Void

    private enum Verdict { case changed, unchanged }

    /// What a download of the farm is allowed: the CA file HTTPS servers are checked against, the bytes.
    struct Limits {
        var caFile: String?
        var maxSize: Int
    }

    /// Revalidates the resources of list `id` whose key (by `keys`, given the list's records in order) is
    /// not in `skipping` (just added or fetched again); returns how many changed and how many did not (those
    /// not done included).
    mutating func run(list id: String, skipping: Set<String>, keys: ([JobRecord]) -> [String])
        -> (changed: Int, unchanged: Int) {
        guard let record = spool.list(id), let table = spool.lists.resources(ofList: id) else { return (0, 0) }
        var candidates: [(resource: DoneResource, url: String)] = []
        var unchanged = 0
        let numbers = Lists(spool).order(ofList: id, total: record.total).numbers.filter { $0 < table.count }
        for (number, key) in zip(numbers, keys(numbers.map { table[$0] })) {
            let entry = table[number]
            if skipping.contains(key) { continue }
            guard let resource = Lists(spool).doneResource(JobName(list: id, index: number)),
                  resource.record.etag != nil || resource.record.modified != nil else {
                unchanged += 1
                continue
            }
            candidates.append((resource, entry.url))
        }
        let request = RequestOptions.decoded(spool.lists.requestOptions(ofList: id))
        let next = Locked(0), changed = Locked(0), finished = Locked(0)
        let group = DispatchGroup()
        for _ in 0..<min(concurrency, candidates.count) {
            group.enter()
            Threads.detach { [spool, candidates, limits, request] in
                defer { group.leave() }
                guard let handle = try? EasyHandle() else { return }
                while true {
                    let index = next.withLock { value in
                        defer { value += 1 }
                        return value
                    }
                    guard index < candidates.count else { return }
                    if Self.revalidate(candidates[index].resource, url: candidates[index].url, spool: spool,
                                       limits: limits, request: request, handle: handle) == .changed {
                        changed.withLock { $0 += 1 }
                    }
                    finished.withLock { $0 += 1 }
                }
            }
        }
        while group.wait(timeout: .now() + 1) == .timedOut {
            progress(finished.withLock { $0 }, candidates.count)
        }
        // A thread that could not make a handle left its share undone: those count as unchanged.
        let changes = changed.withLock { $0 }
        return (changes, unchanged + candidates.count - changes)
    }

    /// One conditional GET, and on a 200 the new outputs put in place of the old.
    private static func revalidate(_ resource: DoneResource, url: String, spool: Spool, limits: Limits,
                                   request options: RequestOptions?, handle: EasyHandle) -> Verdict {
        let old = resource.record
        let stage: String
        do { stage = try Lists(spool).makeSyncStage() } catch {
            spool.log("sync: \(error)")
            return .unchanged
        }
        var keepStage = false
        defer { if !keepStage { try? FileSystem.removeTree(stage) } }
        let download = stage + "/download"
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(download, .readWrite, options: [.create, .exclusiveCreate], permissions: 0o600) }
        catch {
            spool.log("sync: cannot write to \(stage): \(error)")
            return .unchanged
        }
        defer { fd.closeQuietly() }
        let request = DownloadRequest(url: url, maxSize: limits.maxSize, caFile: limits.caFile, ifNoneMatch: old.etag,
                                      ifModifiedSince: old.etag == nil ? old.modified : nil, options: options)
        let result: DownloadResult
        do { result = try handle.download(request, into: fd) { _ in true } } catch {
            spool.log("sync: \(resource.job) not revalidated: \(error.message)")
            return .unchanged
        }
        if result.notModified { return .unchanged }
        // Bytes of another kind are kept as they came for a list that keeps them (`--accept any`, a mirrored
        // site's pages), named as the worker names them.
        let kind: Kind
        if let sniffed = DisplayImage.sniff(descriptor: fd) {
            kind = sniffed
        } else if options?.acceptAny == true {
            kind = .other
        } else {
            spool.log("sync: \(resource.job) kept: its new bytes are of no supported kind")
            return .unchanged
        }
        let base = stage + "/" + String(resource.job.index)
        let file = base + "." + kind.storedExtension(url: url)
        var image: String?, thumb: String?
        do {
            try FileSystem.rename(download, file)
            // Made as the worker made the old ones: none when it made none (`farm start --no-convert`).
            if old.image != nil {
                let made = try DisplayImage.make(for: file, kind: kind, base: base)
                image = made.image
                thumb = made.thumbnail ?? (try? Thumbnail.make(for: made.image, base: base))
            }
        } catch {
            spool.log("sync: \(resource.job) kept: \(error)")
            return .unchanged
        }
        let directory = spool.outputDirectory(ofList: resource.job.list)
        let final = { (path: String?) in path.map { directory + $0.dropFirst(stage.count) } }
        let record = Sidecar(status: .done, bytes: result.bytes, size: result.bytes, kind: kind.rawValue,
                             file: final(file), image: final(image), thumb: final(thumb), attempts: old.attempts,
                             changed: Timestamp.iso8601(Clock.wall()), etag: result.etag, modified: result.modified)
        keepStage = true  // replaceOutputs removes it
        do {
            guard try Lists(spool).replaceOutputs(of: resource, url: url, stage: stage, record: record) else {
                return .unchanged
            }
        } catch {
            spool.log("sync: \(error)")
            return .unchanged
        }
        publish(record, of: url, spool: spool)
        return .changed
    }

    /// The new bytes become the URL's valid result (see Dedup.swift in FarmDedup), so that jobs of the
    /// same URL queued from now on are served them. Skipped while a worker transfers the URL: its result
    /// will be published. Bytes a transfer of the URL left to resume are of the old content: they go.
    private static func publish(_ record: Sidecar, of url: String, spool: Spool) {
        guard let file = record.file, case .held(let partial) = URLPartial.take(spool, url: url) else { return }
        defer { partial.drop() }
        guard let fd = try? FileDescriptor.open(file, .readOnly) else { return }
        defer { fd.closeQuietly() }
        Dedup(spool).publish(file, fd: fd, url: url, size: record.bytes, kind: record.kind, etag: record.etag,
                      modified: record.modified)
    }
}
