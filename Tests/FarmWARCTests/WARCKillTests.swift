import FarmTestSupport
import Foundation
import Glibc
import Testing
@testable import FarmWARC

/// No torn record across kills: writers killed by SIGKILL at random moments, files cut at every byte of their
/// last records, then recovery, then warcio.
@Suite struct WARCKillTests {
    /// The acknowledged response IDs a writer printed (each on the disk when printed).
    private func acknowledged(_ child: ChildProcess) -> [String] {
        child.outputLines.filter { $0.hasPrefix("ack ") }.map { String($0.split(separator: " ")[1]) }
    }

    @Test func writersKilledAtRandomMomentsLeaveOnlyWholeRecordsAfterRecovery() throws {
        let dir = TemporaryDirectory("farm-warc")
        let warcs = dir.appending("warc")
        try WARCTools.write(WARCTools.random(3 << 20), to: dir.appending("body"))
        var generator = SystemRandomNumberGenerator()
        var acked: [String] = []
        for _ in 0..<6 {
            // 1 MiB files: kills land in rotations too.
            let child = try ChildProcess("farm-warc-writer", ["loop", warcs, String(1 << 20), dir.appending("body")])
            let wanted = Int.random(in: 1...8, using: &generator)
            #expect(poll(timeout: 120) { acknowledged(child).count >= wanted }, "\(child.standardError)")
            // A random moment past that: inside a member, between members, in an fsync or a rotation.
            usleep(UInt32.random(in: 0...40_000, using: &generator))
            child.kill(SIGKILL)
            #expect(child.wait(timeout: 60) != nil)
            acked += acknowledged(child)
        }
        #expect(!WARCTools.openFiles(warcs).isEmpty)

        let finished = try WARCRecovery.recover(directory: warcs)
        #expect(!finished.isEmpty)
        #expect(WARCTools.openFiles(warcs).isEmpty)
        let files = WARCTools.finishedFiles(warcs)
        let check = try WARCTools.check(files.map { warcs + "/" + $0 })
        #expect(check.status == 0, "\(check.output)")
        var responses: [String] = [], requests: [WARCTools.Entry] = []
        for file in files {
            let entries = try WARCTools.index(warcs + "/" + file)
            #expect(entries.first?.type == "warcinfo" && entries.first?.filename == file)
            #expect(entries.count >= 2, "\(file) holds its warcinfo only")
            responses += entries.filter { $0.type == "response" }.map(\.id)
            requests += entries.filter { $0.type == "request" }
            // Recovery's count is what warcio reads.
            if let done = finished.first(where: { $0.name == file }) { #expect(done.records == entries.count) }
        }
        // Every record a writer was told was written is there, once; nothing else is there twice.
        #expect(Set(responses).count == responses.count)
        #expect(Set(acked).isSubset(of: Set(responses)), "lost: \(Set(acked).subtracting(responses))")
        // Each request follows its response: none names a response that is not there.
        #expect(requests.allSatisfy { $0.concurrentTo.map(Set(responses).contains) == true })
        #expect(responses.count - requests.count <= 6)
        // A second recovery has nothing to do.
        #expect(try WARCRecovery.recover(directory: warcs).isEmpty)
    }

    @Test func writersOfSeveralProcessesShareAFolderWithNoLock() throws {
        let dir = TemporaryDirectory("farm-warc")
        let warcs = dir.appending("warc")
        try WARCTools.write(WARCTools.random(1 << 20), to: dir.appending("body"))
        let children = try (0..<3).map { _ in
            try ChildProcess("farm-warc-writer", ["loop", warcs, String(512 << 10), dir.appending("body")])
        }
        #expect(poll(timeout: 120) { children.allSatisfy { acknowledged($0).count >= 6 } })
        for child in children {
            child.kill(SIGKILL)
            #expect(child.wait(timeout: 60) != nil)
        }
        let acked = children.flatMap(acknowledged)
        // Each writer's files are its own: their names differ by the writer's nonce.
        let ackedFiles = Set(children.flatMap { $0.outputLines.compactMap { $0.split(separator: " ").last.map(String.init) } })
        let nonces = Set(ackedFiles.map { $0.split(separator: "-")[3] })
        #expect(nonces.count == 3)
        _ = try WARCRecovery.recover(directory: warcs)
        #expect(WARCTools.openFiles(warcs).isEmpty)
        let files = WARCTools.finishedFiles(warcs)
        #expect(ackedFiles.isSubset(of: Set(files)))
        #expect(try WARCTools.check(files.map { warcs + "/" + $0 }).status == 0)
        var responses: [String] = []
        for file in files { responses += try WARCTools.index(warcs + "/" + file).filter { $0.type == "response" }.map(\.id) }
        #expect(Set(responses).count == responses.count)
        #expect(Set(acked).isSubset(of: Set(responses)))
    }

    @Test func recoveryLeavesALiveWritersFileAlone() throws {
        let dir = TemporaryDirectory("farm-warc")
        let warcs = dir.appending("warc")
        try WARCTools.write(WARCTools.random(100_000), to: dir.appending("body"))
        let child = try ChildProcess("farm-warc-writer", ["loop", warcs, String(1 << 30), dir.appending("body")])
        #expect(poll(timeout: 120) { !acknowledged(child).isEmpty }, "\(child.standardError)")
        let open = WARCTools.openFiles(warcs)
        #expect(open.count == 1)
        #expect(try WARCRecovery.recover(directory: warcs).isEmpty)
        #expect(WARCTools.openFiles(warcs) == open)
        child.kill(SIGKILL)
        #expect(child.wait(timeout: 60) != nil)
        let finished = try WARCRecovery.recover(directory: warcs)
        #expect(finished.map(\.name) == open.map { String($0.dropLast(".open".count)) })
        #expect(WARCTools.openFiles(warcs).isEmpty)
    }

    @Test func aFileCutAtAnyByteOfItsLastExchangeKeepsExactlyTheRecordsBefore() throws {
        let dir = TemporaryDirectory("farm-warc")
        let writer = try WARCWriter(directory: dir.appending("whole"), software: "farm/test")
        for n in 0..<3 { try writer.write(WARCTools.exchange("/\(n)", body: .bytes(WARCTools.random(20_000)))) }
        try writer.close()
        let name = try #require(WARCTools.finishedFiles(dir.appending("whole")).first)
        let whole = try WARCTools.bytes(dir.appending("whole/" + name))
        let scan = try WARCScan.scan(path: dir.appending("whole/" + name))
        #expect(scan.isWhole && scan.members.count == 7 && scan.size == whole.count)
        let response = scan.members[5], request = scan.members[6]
        // Every byte of the request's member, every 53rd of the response's.
        let cuts = Array(stride(from: response.lowerBound, to: response.upperBound, by: 53)) + Array(request)
        let cutDir = dir.appending("cut")
        try FileManager.default.createDirectory(atPath: cutDir, withIntermediateDirectories: true)
        for (k, cut) in cuts.enumerated() {
            try WARCTools.write(Array(whole[0..<cut]), to: cutDir + "/" + name + ".open")
            let finished = try WARCRecovery.recover(directory: cutDir)
            let kept = cut < request.lowerBound ? 5 : 6
            #expect(finished == [.init(name: name, records: kept, cutBytes: cut - scan.members[kept - 1].upperBound)])
            let recovered = try WARCTools.bytes(cutDir + "/" + name)
            // Compared as one Bool: a failure names the cut, not megabytes of bytes.
            let keptExactly = recovered == Array(whole[0..<scan.members[kept - 1].upperBound])
            #expect(keptExactly, "cut at \(cut)")
            if k % 40 == 0 {
                #expect(try WARCTools.check([cutDir + "/" + name]).status == 0)
                #expect(try WARCTools.index(cutDir + "/" + name).count == kept)
            }
            try FileManager.default.removeItem(atPath: cutDir + "/" + name)
        }
    }

    @Test func aZeroedOrCorruptTailIsCutAtTheLastWholeRecord() throws {
        let dir = TemporaryDirectory("farm-warc")
        let writer = try WARCWriter(directory: dir.path, software: "farm/test")
        for n in 0..<2 { try writer.write(WARCTools.exchange("/\(n)", body: .bytes(WARCTools.random(5_000)))) }
        try writer.close()
        let name = try #require(WARCTools.finishedFiles(dir.path).first)
        let whole = try WARCTools.bytes(dir.appending(name))
        let scan = try WARCScan.scan(path: dir.appending(name))
        // A power cut can leave the blocks past the last fdatasync as zeros.
        try WARCTools.write(whole + [UInt8](repeating: 0, count: 4096), to: dir.appending(name + ".open"))
        try FileManager.default.removeItem(atPath: dir.appending(name))
        #expect(try WARCRecovery.recover(directory: dir.path) == [.init(name: name, records: 5, cutBytes: 4096)])
        let wholeAgain = try WARCTools.bytes(dir.appending(name)) == whole
        #expect(wholeAgain)
        // A byte flipped inside the last member's deflate data: its CRC-32 no longer matches.
        var corrupt = whole
        corrupt[scan.members[4].lowerBound + 30] ^= 0x55
        try WARCTools.write(corrupt, to: dir.appending(name + ".open"))
        try FileManager.default.removeItem(atPath: dir.appending(name))
        let finished = try WARCRecovery.recover(directory: dir.path)
        #expect(finished == [.init(name: name, records: 4, cutBytes: scan.members[4].count)])
        let cutAtTheRequest = try WARCTools.bytes(dir.appending(name)) == Array(whole[0..<scan.members[3].upperBound])
        #expect(cutAtTheRequest)
        #expect(try WARCTools.check([dir.appending(name)]).status == 0)
        // Nothing whole past the warcinfo: the file goes.
        try WARCTools.write(Array(whole[0..<scan.members[1].lowerBound + 10]), to: dir.appending("x.warc.gz.open"))
        #expect(try WARCRecovery.recover(directory: dir.path) == [.init(name: "x.warc.gz", records: 1, cutBytes: 10)])
        #expect(!FileManager.default.fileExists(atPath: dir.appending("x.warc.gz")))
        #expect(WARCTools.openFiles(dir.path).isEmpty)
    }
}
