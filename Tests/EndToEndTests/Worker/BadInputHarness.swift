import FarmConvert
import FarmJSON
import FarmOrigin
import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// One bad-input scenario: a real origin on 127.0.0.1, a fresh spool in a temporary directory, one
/// manifest of URLs added with `farm add`, then `farm work --exit-when-idle` processes run to the end.
///
/// Every manifest also lists `/good.png`, a real image, so each test can check that the bad resources
/// harmed nothing else (SPEC §5). Made by one test and used by its thread only.
final class BadInputHarness {
    let origin = Origin()
    let dir = TemporaryDirectory("farm-bad")
    /// The list every manifest becomes (`farm add` names it after the file).
    let list = ListID.of(name: "Bad.json")
    /// Page 1 of `PDFFixture` as a PNG: decodable, so every step of the worker succeeds on it.
    let good: [UInt8]

    var spoolPath: String { dir.appending("spool") }

    init() throws {
        let pdf = dir.appending("good.pdf")
        try Data(PDFFixture.make()).write(to: URL(fileURLWithPath: pdf))
        try PDFRenderer.renderFirstPage(pdf: pdf, to: dir.appending("good.png"), maxSide: 64)
        good = try Self.bytes(dir.appending("good.png"))
        origin.serve(path: "/good.png", bytes: good)
        try origin.start()
    }

    deinit { origin.stop() }

    /// Bytes that start like a JPEG: farm tells kinds by magic numbers, so they are stored as a JPG (the
    /// worker only logs that it cannot make a thumbnail of them), and any splice or gap shows.
    static func jpegLike(_ count: Int) -> [UInt8] {
        [0xFF, 0xD8, 0xFF, 0xE0] + (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    }

    /// Adds `paths` (origin paths, or whole URLs when they hold `:`) and then `/good.png` as one list;
    /// returns the index `/good.png` got.
    @discardableResult
    func add(_ paths: [String]) throws -> Int {
        let urls = paths.map { $0.contains(":") ? $0 : origin.url(for: $0) } + [origin.url(for: "/good.png")]
        let manifest = dir.appending("Bad.json")
        try Data(JSON.encode(urls)).write(to: URL(fileURLWithPath: manifest))
        let added = try farm(["add", manifest])
        try #require(added.status == 0, "farm add: \(added.error)")
        return paths.count
    }

    func farm(_ arguments: [String], timeout: Double = 240) throws -> (status: Int32, output: String, error: String) {
        try run("farm", arguments + ["--spool", spoolPath], timeout: timeout)
    }

    /// Runs one worker until the queue is empty; `#require`s that it exits 0.
    func work(_ arguments: [String] = []) throws {
        let worked = try farm(["work", "--exit-when-idle"] + arguments)
        try #require(worked.status == 0, "farm work exited \(worked.status): \(worked.error)")
    }

    func spool() throws -> Spool { try Spool(root: spoolPath, create: false) }

    func job(_ index: Int) -> JobName { JobName(list: list, index: index) }

    func sidecar(_ index: Int) throws -> Sidecar {
        try #require(try spool().sidecars.last(job(index)), "no sidecar for \(index)")
    }

    /// The job ended in `failed/` with status `error` and a reason that passes `reason`; returns the reason.
    @discardableResult
    func expectFailed(_ index: Int, attempts: Int? = nil, _ reason: (String) -> Bool,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let spool = try spool()
        let result = try sidecar(index)
        let error = result.error ?? ""
        #expect(result.status == .error, "\(index): \(result)", sourceLocation: sourceLocation)
        #expect(reason(error), "\(index): unexpected reason \"\(error)\"", sourceLocation: sourceLocation)
        if let attempts {
            #expect(result.attempts == attempts, "\(index): \(result)", sourceLocation: sourceLocation)
        }
        #expect(access(spool.failed + "/" + list + "/" + job(index).raw, F_OK) == 0,
                "\(index) is not in failed/", sourceLocation: sourceLocation)
        #expect(result.image == nil, sourceLocation: sourceLocation)
        return error
    }

    /// The job ended in `done/` and its file holds exactly `bytes`; returns its sidecar.
    @discardableResult
    func expectDone(_ index: Int, bytes expected: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws
        -> Sidecar {
        let spool = try spool()
        let result = try sidecar(index)
        #expect(result.status == .done, "\(index): \(result)", sourceLocation: sourceLocation)
        #expect(access(spool.done + "/" + list + "/" + job(index).raw, F_OK) == 0,
                "\(index) is not in done/", sourceLocation: sourceLocation)
        let file = try #require(result.file, sourceLocation: sourceLocation)
        let bytes = try Self.bytes(file)
        let same = bytes == expected  // a Bool: a failed `#expect(a == b)` would print every byte
        #expect(same, "\(index): \(bytes.count) bytes, not the \(expected.count) expected",
                sourceLocation: sourceLocation)
        return result
    }

    /// Nothing else was harmed: `/good.png` is done with its exact bytes, and is its own display image.
    func expectGoodDone(_ index: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try expectDone(index, bytes: good, sourceLocation: sourceLocation)
        #expect(result.kind == "png" && result.image == result.file, "\(result)", sourceLocation: sourceLocation)
    }

    /// The files of the spool whose names start with `prefix` under `files/<list>/` (outputs of one job).
    func outputs(_ index: Int) throws -> [String] {
        let folder = try spool().files + "/" + list
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0 == String(index) || $0.hasPrefix(String(index) + ".") }
    }

    /// Every regular file below `path`, with its size.
    static func files(below path: String) -> [(path: String, size: Int)] {
        let names = FileManager.default.subpaths(atPath: path) ?? []
        return names.compactMap { name in
            let full = path + "/" + name
            var st = stat()
            guard lstat(full, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
            return (full, Int(st.st_size))
        }
    }

    static func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
}
