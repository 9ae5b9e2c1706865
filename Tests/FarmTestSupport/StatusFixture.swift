import FarmSpool
import Foundation
import Glibc

/// A spool for one status test: lists enqueued through the spool's own API (what `farm add` calls),
/// and jobs moved by hand between queue/, active/, done/ and failed/ with rename(2), as the claim,
/// completion and hand-back of the protocol do, so a test can put any job in any state.
public final class StatusFixture {
    /// This test's directory (the spool is `spool` in it); removed with the fixture.
    public let path: String
    private let temporary: TemporaryDirectory?
    public let spool: Spool
    /// Where each queued job file is, learnt by walking the queue once per new batch (not per move).
    private var queued: [JobName: String] = [:]

    public var root: String { spool.root }

    /// `inMemory` puts the spool on tmpfs (/dev/shm) when there is one, for fixtures of many jobs:
    /// on a busy disk, enqueueing 100k jobs takes tens of seconds, in memory about one.
    public init(inMemory: Bool = false) throws {
        var template = Array("/dev/shm/farm-status-XXXXXX".utf8CString)
        if inMemory, ProcessInfo.processInfo.environment["FARM_TEST_TMP"] == nil, let made = mkdtemp(&template) {
            path = String(cString: made)
            temporary = nil
        } else {
            let directory = TemporaryDirectory("farm-status")
            path = directory.path
            temporary = directory
        }
        spool = try Spool(root: path + "/spool")
    }

    deinit {
        if temporary == nil { try? FileManager.default.removeItem(atPath: path) }
    }

    public func appending(_ component: String) -> String { path + "/" + component }

    /// Enqueues `count` resources as list `name`; returns the list id. `titled`: the list has a title
    /// and a cover, and each resource a title ("Photo N") and a caption ("Caption N").
    @discardableResult
    public func addList(_ name: String, count: Int, titled: Bool = false) throws -> String {
        try SpoolFixtures.publishList(spool, name: name, count: count, title: titled ? "The \(name)" : nil,
                                      cover: titled ? SpoolFixtures.onePixelPNG : nil, titled: titled,
                                      urls: "http://127.0.0.1:1/")
    }

    /// Claims job `index` of `list` for `owner`, as a worker's claim does: one rename.
    public func activate(_ list: String, _ index: Int) throws {
        let job = JobName(list: list, index: index)
        let source = try requireQueued(job)
        try move(source, activePath(job))
        queued[job] = nil
    }

    /// The owner of the jobs this fixture claims: a name as this process would make for a claim, its time
    /// that of its first use.
    public static let owner = Owner.fresh().raw

    /// Completes an active job into done/ (or failed/).
    public func complete(_ list: String, _ index: Int, failed: Bool = false) throws {
        let job = JobName(list: list, index: index)
        let directory = (failed ? spool.failed : spool.done) + "/" + list
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try move(try activeFile(job), directory + "/" + job.raw)
    }

    /// Claims and completes in one go.
    public func finish(_ list: String, _ index: Int, failed: Bool = false) throws {
        try activate(list, index)
        try complete(list, index, failed: failed)
    }

    /// Hands an active job back to the queue, as a release or a reclaim does.
    public func handBack(_ list: String, _ index: Int) throws {
        let job = JobName(list: list, index: index)
        let shard = spool.queue + "/0/r"
        try FileManager.default.createDirectory(atPath: shard, withIntermediateDirectories: true)
        try move(try activeFile(job), shard + "/" + job.raw)
        queued[job] = shard + "/" + job.raw
    }

    public func writeSidecar(_ list: String, _ index: Int, _ sidecar: Sidecar) throws {
        try spool.sidecars.write(sidecar, for: JobName(list: list, index: index))
    }

    /// Writes a sidecar's JSON as is (for fields this build's `Sidecar` does not have yet).
    public func writeRawSidecar(_ list: String, _ index: Int, _ json: String) throws {
        let path = spool.progress + "/" + JobName(list: list, index: index).raw + ".json"
        try Data(json.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    private func activePath(_ job: JobName) -> String {
        spool.active + "/" + job.raw + "@" + Self.owner
    }

    private func activeFile(_ job: JobName) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: spool.active)
        guard let name = names.first(where: { $0.hasPrefix(job.raw + "@") }) else {
            throw FixtureError("\(job) is not active")
        }
        return spool.active + "/" + name
    }

    /// The queue path of `job`; the queue is walked again when the job is not known yet (a new
    /// batch, from this fixture or from `farm add`).
    private func requireQueued(_ job: JobName) throws -> String {
        if queued[job] == nil {
            let files = FileManager.default
            for batch in try files.contentsOfDirectory(atPath: spool.queue) where !batch.hasPrefix(".") {
                for shard in try files.contentsOfDirectory(atPath: spool.queue + "/" + batch) where !shard.hasPrefix(".") {
                    let directory = spool.queue + "/" + batch + "/" + shard
                    for name in try files.contentsOfDirectory(atPath: directory) {
                        if let job = JobName(name) { queued[job] = directory + "/" + name }
                    }
                }
            }
        }
        guard let path = queued[job] else { throw FixtureError("\(job) is not queued") }
        return path
    }

    private func move(_ from: String, _ to: String) throws {
        guard rename(from, to) == 0 else {
            throw FixtureError("rename \(from) → \(to): \(String(cString: strerror(errno)))")
        }
    }
}

public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
