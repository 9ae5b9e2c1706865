import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// The built `farm` binary, run as a user would: output, exit status, one-line errors.
@Suite struct CLITests {
    @Test func refusesAForeignDirectoryInOneLineAndTouchesNothing() throws {
        let dir = TemporaryDirectory()
        try Data("mine".utf8).write(to: URL(fileURLWithPath: dir.appending("notes.txt")))
        let result = try run("farm", ["recover", "--spool", dir.path])
        #expect(result.status != 0)
        let lines = result.error.split(separator: "\n")
        #expect(lines.first?.contains("is not a farm spool") == true, "\(result.error)")
        #expect(!result.error.contains("Fatal error") && !result.error.contains("Stack"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["notes.txt"])
    }

    @Test func createsThePrivateSpoolFromTheEnvironment() throws {
        let dir = TemporaryDirectory()
        let spool = dir.appending("spool")
        let result = try run("farm", ["recover"], environment: ["FARM_SPOOL": spool])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("reclaimed 0 job(s)"))
        #expect(FileManager.default.fileExists(atPath: spool + "/.farm-spool"))
        #expect(FileManager.default.fileExists(atPath: spool + "/queue"))
    }
}
