import ArgumentParser
import FarmJSON
import FarmOrigin
import FarmSpool
import FarmSystem
import Foundation

/// `sync --resources 10000`: the cost of `farm sync` (SPEC §7) on a list whose source did not change: a
/// list of that many small resources served by FarmOrigin on 127.0.0.1 (which counts what it serves),
/// downloaded to the end by a farm (6 workers, no conversion), the farm stopped, then `farm sync` timed,
/// `--rounds` times, with what the origin served meanwhile (expected: a 304 for each, no body).
struct SyncBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync",
                                                    abstract: "Time and body bytes of a sync of an unchanged list.")

    @OptionGroup var workspace: Workspace
    @Option(help: "Resources in the list.") var resources = 10_000
    @Option(help: "Syncs timed.") var rounds = 3

    func run() throws {
        let origin = Origin()
        try origin.start()
        defer { origin.stop() }
        let base = try workspace.make("sync")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let spool = try Spool(root: base + "/spool")
        let farm = FarmCommand(spool: spool)
        defer { farm.stopAndKill() }

        var random = SplitMix64(seed: 0x5EED_0022)
        var items: [JSONValue] = []
        for n in 0..<resources {
            let body = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<2040).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            origin.serve(path: "/r/\(n).png", bytes: body)
            items.append(.object([JSONMember("id", .string("r\(n)")), JSONMember("url", .string(origin.url(for: "/r/\(n).png")))]))
        }
        let manifest = base + "/Unchanged.json"
        try Data(JSON.encode(JSONValue.array(items))).write(to: URL(fileURLWithPath: manifest))
        try farm.run(["add", manifest], quiet: true)
        let start = Clock.monotonic()
        try farm.run(["start", "--workers", "6", "--no-convert"], quiet: true)
        let done = spool.finishedDirectory(ListID.of(name: "Unchanged.json"), .done)
        while FileSystem.names(done).count < resources {
            Thread.sleep(forTimeInterval: 0.2)
            if Clock.monotonic() - start > 900 { throw ValidationError("the list was not downloaded in 15 minutes") }
        }
        print(String(format: "%d resources downloaded in %.1f s", resources, Clock.monotonic() - start))
        try farm.run(["stop"], quiet: true)

        for round in 1...rounds {
            origin.clearRequests()
            let began = Clock.monotonic()
            let output = try farm.output(["sync", "Unchanged.json"])
            let seconds = Clock.monotonic() - began
            let served = origin.servedCounts
            print(String(format: "sync %d: %.2f s, %d requests, %d bodies, %d body bytes, %d not modified: %@",
                         round, seconds, origin.requests.count, served.bodies, served.bodyBytes, served.notModified,
                         output.trimmingCharacters(in: .newlines)))
        }
    }
}

extension FarmCommand {
    /// Runs `farm <arguments>` and returns what it printed; throws unless it exits 0.
    func output(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments + ["--spool", spool.root]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ValidationError("farm \(arguments[0]) failed") }
        return String(decoding: data, as: UTF8.self)
    }
}
