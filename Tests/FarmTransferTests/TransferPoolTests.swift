import FarmOrigin
import FarmSystem
import FarmTestSupport
import FarmTransfer
import Foundation
import Glibc
import SystemPackage
import Testing

/// Many transfers of one process on one pool (SPEC §13): each thread's transfer lands whole in its own
/// file, and the transfers share the pool's connections instead of each opening its own.
@Suite struct TransferPoolTests {
    let origin = Origin()

    init() throws {
        try origin.start()
    }

    @Test func manyThreadsTransferAtOnceOverSharedConnections() throws {
        let bodies = (0..<64).map { index in
            (0..<(20_000 + index * 997)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
        }
        for (index, body) in bodies.enumerated() { origin.serve(path: "/\(index).bin", bytes: body) }
        let pool = try TransferPool()
        let dir = TemporaryDirectory()
        let threads = 8
        let results = Locked([Int: (bytes: [UInt8], connections: Int)]())
        let failures = Locked([String]())
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            do {
                let handle = try EasyHandle(pool: pool)
                for index in stride(from: thread, to: bodies.count, by: threads) {
                    let path = dir.appending("\(index)")
                    let fd = try FileDescriptor.open(path, .readWrite, options: [.create], permissions: .ownerReadWrite)
                    defer { try? fd.close() }
                    let result = try handle.download(DownloadRequest(url: origin.url(for: "/\(index).bin")), into: fd) { _ in true }
                    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
                    #expect(result.bytes == bodies[index].count)
                    results.withLock { $0[index] = (bytes, handle.connectionsOpened) }
                }
            } catch {
                failures.withLock { $0.append("thread \(thread): \(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let got = results.withLock { $0 }
        #expect(got.count == bodies.count)
        for (index, body) in bodies.enumerated() { #expect(got[index]?.bytes == body, "file \(index)") }
        // Each thread's first transfer may open a connection; the rest reuse one of the pool's.
        let opened = got.values.map(\.connections).reduce(0, +)
        #expect(opened <= threads * 2, "\(opened) connections opened for \(bodies.count) transfers")
    }
}
