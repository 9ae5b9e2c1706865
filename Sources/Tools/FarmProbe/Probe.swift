import ArgumentParser
import FarmControl
import FarmDesired
import FarmLists
import FarmFollower
import FarmPages
import FarmRegistry
import FarmSpool
import FarmSystem
import FarmTop
import FarmWorker
import Foundation

/// farm-probe drives the spool protocol one operation at a time, as a separate process, so the
/// tests can run many of them at once, kill them, and crash them at named points
/// (`FARM_FAILPOINT`, see `CrashPoint`); it also runs `farm add` and `farm top` with a crash armed.
/// It is a test tool: users never need it, and farm does not ship it.
@main
struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "farm-probe",
        abstract: "Drive the farm spool step by step (for tests).",
        subcommands: [Enqueue.self, Drain.self, Hold.self, Recover.self, Add.self, Top.self, Follow.self, Linger.self,
                      AppendLinks.self, Work.self, ConvertLinks.self]
    )

    static func main() {
        CrashPoint.armFromEnvironment()
        main(nil)
    }
}

struct SpoolPath: ParsableArguments {
    @Option(help: "The spool directory.") var spool: String
}

/// Prints one line and flushes it at once: the test reading it may kill this process next.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// `enqueue --jobs N --lists K`: N jobs spread over K lists named "List 1"…, in one batch.
struct Enqueue: ParsableCommand {
    @OptionGroup var options: SpoolPath
    @Option var jobs: Int
    @Option var lists: Int = 1
    @Option(help: "Prefix of list names, so several enqueues make distinct lists.") var name = "List"

    func run() throws {
        let spool = try Spool(root: options.spool)
        try Lists(spool).recover()
        let ids = (1...lists).map { ListID.of(name: "\(name) \($0)") }
        let perList = (jobs + lists - 1) / lists
        let newJobs = (0..<jobs).lazy.map { n in
            NewJob(name: JobName(list: ids[n / perList], index: n % perList),
                   record: JobRecord(url: "http://127.0.0.1:1/\(n).jpg", id: "r\(n)"))
        }
        let records = ids.enumerated().map { i, id in
            ListRecordFile(id: id, bytes: Array("{\"name\":\"\(name) \(i + 1)\"}\n".utf8))
        }
        let batch = try spool.enqueue(newJobs, lists: records)
        say("enqueued \(jobs) \(batch)")
    }
}

/// `drain --record FILE`: claims and completes jobs until the queue is empty, appending each
/// claimed job name to FILE (the file is the evidence of exactly-once claiming).
struct Drain: ParsableCommand {
    @OptionGroup var options: SpoolPath
    @Option(help: "File to append claimed job names to.") var record: String?
    @Option(help: "Fail every Nth job instead of completing it done (0: never).") var failEvery = 0

    func run() throws {
        let spool = try Spool(root: options.spool)
        let claimer = Claimer(spool: spool)
        let log = record.map { path -> FileHandle in
            if !FileManager.default.fileExists(atPath: path) {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
            }
            return FileHandle(forWritingAtPath: path)!
        }
        log?.seekToEndOfFile()
        var count = 0
        while let claim = try claimer.claim() {
            log?.write(Data((claim.job.raw + "\n").utf8))
            count += 1
            try spool.renew(claim)
            try spool.complete(claim, failEvery > 0 && count % failEvery == 0 ? .failed : .done)
        }
        say("drained \(count)")
    }
}

/// `hold --count N`: claims N jobs, prints them, then keeps their leases renewed (or not) until
/// killed: the test's model of a worker busy on long downloads.
struct Hold: ParsableCommand {
    @OptionGroup var options: SpoolPath
    @Option var count = 1
    @Option(help: "Renew every S seconds; 0 never renews.") var renewEvery: Double = 0

    func run() throws {
        let spool = try Spool(root: options.spool)
        let claimer = Claimer(spool: spool)
        var claims: [Claim] = []
        while claims.count < count, let claim = try claimer.claim() {
            claims.append(claim)
            say("claimed \(claim.job) \(claim.owner)")
        }
        say("holding \(claims.count)")
        while true {
            if renewEvery > 0 {
                Thread.sleep(forTimeInterval: renewEvery)
                for claim in claims { try spool.renew(claim) }
            } else {
                Thread.sleep(forTimeInterval: 3600)
            }
        }
    }
}

/// `recover --lease S`: what `farm start` does first: roll forward, discard, reclaim.
struct Recover: ParsableCommand {
    @OptionGroup var options: SpoolPath
    @Option var lease: Double = 10

    func run() throws {
        let spool = try Spool(root: options.spool)
        let report = try Lists(spool).recover()
        let reclaimed = spool.reclaimExpired(lease: lease)
        say("rolled \(report.batchesRolledForward) discarded \(report.stagesDiscarded) reclaimed \(reclaimed.count)")
    }
}

/// `add SOURCE`: what `farm add SOURCE` does (the same `Control.add`), so a crash point can stop it.
struct Add: ParsableCommand {
    @OptionGroup var options: SpoolPath
    @Argument var source: String

    func run() throws {
        for line in try Control(spool: try Spool(root: options.spool)).add(source).lines { say(line) }
    }
}

/// `follow`: what `farm follow` does (the same `Follower.run`), so a crash point (`pages.tabled`,
/// `pages.queued`, `pages.committed`) can stop it half-way through adding a page.
struct Follow: ParsableCommand {
    @OptionGroup var options: SpoolPath

    func run() throws {
        let spool = try Spool(root: options.spool, create: false)
        say(try Follower(spool: spool).run() ? "followed" : "another follower runs")
    }
}

/// `append-links --list NAME URL…`: what a worker does with the links of a recursive list's page before it
/// completes the page (the same `Lists.appendLinks`, FarmLists' CrawlAppend.swift), so a crash point
/// (`crawl.tabled`, `crawl.committed`) can stop it half-way. Prints how many were added.
struct AppendLinks: ParsableCommand {
    @OptionGroup var options: SpoolPath
    @Option var list: String
    @Argument var urls: [String]

    func run() throws {
        let spool = try Spool(root: options.spool, create: false)
        let records = urls.map { url in
            var record = JobRecord(url: url, id: "")
            record.depth = 1
            return record
        }
        say("added \(try Lists(spool).appendLinks(records, toList: ListID.of(name: list), seen: CrawlSeen()))")
    }
}

/// `work --transfers N`: what `farm work --exit-when-idle` does (the same `Worker.run`), so a crash point can
/// stop a real worker between two steps of a job: a recursive list's page between its links' commit
/// (`crawl.committed`) and its completion (`complete.renamed`).
struct Work: ParsableCommand {
    @OptionGroup var options: SpoolPath
    @Option var transfers = 1
    @Option(help: "Seconds a claim stays valid without renewal (default: the farm's).") var lease: Double?

    func run() throws {
        let spool = try Spool(root: options.spool, create: false)
        var settings = WorkerOptions(spool.control.desired())
        if let lease { settings.lease = lease }
        settings.exitWhenIdle = true
        settings.transfers = transfers
        try Worker.run(spool, settings, supervised: false)
        say("idle")
    }
}

/// `convert-links --list NAME`: what the watcher does once a list of `--convert-links` is finished (the same
/// `Lists.convertLinks`, FarmLists' LinkConversion.swift), so a crash point (`convert.replaced`) can stop it
/// between two files. Prints how many files it wrote again.
struct ConvertLinks: ParsableCommand {
    @OptionGroup var options: SpoolPath
    @Option var list: String

    func run() throws {
        let spool = try Spool(root: options.spool, create: false)
        say("converted \(try Lists(spool).convertLinks(ofList: ListID.of(name: list)))")
    }
}

/// `top --crash-after-frames N`: `farm top` (the same `LiveView.run`) dying of a Swift trap once it has
/// drawn N frames, to prove a crash gives the terminal back.
struct Top: ParsableCommand {
    @OptionGroup var options: SpoolPath
    @Option var crashAfterFrames: Int

    func run() throws {
        let spool = try Spool(root: options.spool, create: false)
        let crashAfter = crashAfterFrames
        LiveView.run(spool) { frames in
            if frames >= crashAfter { fatalError("crashing after \(frames) frames, as asked") }
        }
    }
}

/// `linger --seconds S`: registers as a worker, and on SIGTERM leaves the registry and lives S seconds more
/// before it exits: a process slow to exit (a sanitizer's runtime, a hand-over on the way out), which a
/// `farm stop` must wait for.
struct Linger: ParsableCommand {
    @OptionGroup var options: SpoolPath
    @Option var seconds: Double

    func run() throws {
        StopSignal.install()
        let spool = try Spool(root: options.spool)
        let registration = try spool.registry.register(.worker)
        say("registered")
        while !StopSignal.received { Thread.sleep(forTimeInterval: 0.01) }
        registration.end()
        Thread.sleep(forTimeInterval: seconds)
    }
}
