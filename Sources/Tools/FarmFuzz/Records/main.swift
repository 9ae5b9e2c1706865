import FarmDedup
import FarmJSON
import FarmLists
import FarmSpool

/// libFuzzer's entry (`bin/fuzz records`): any bytes as one of the spool's records, as a process reads
/// them after a crash or from a damaged disk; the first byte picks which. A record that reads is valid:
/// written again, it reads back as the same record, and a second write is the first byte for byte.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecords(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let bytes = Array(UnsafeRawBufferPointer(start: start + 1, count: count - 1))
    switch start.load(as: UInt8.self) % 5 {
    case 0: roundTrip(JobRecord.self, bytes)
    case 1: roundTrip(Sidecar.self, bytes)
    case 2: roundTrip(URLRecord.self, bytes)
    case 3: roundTrip(ListRecord.self, bytes)
    default: roundTrip(PagedSource.self, bytes)
    }
    return 0
}

private func roundTrip<Record: JSONReadable & JSONWritable & Equatable>(_ type: Record.Type, _ bytes: [UInt8]) {
    guard let record = JSON.decode(type, from: bytes) else { return }
    let written = JSON.encode(record)
    guard let again = JSON.decode(type, from: written) else {
        fatalError("\(type) written back does not read: \(String(decoding: written, as: UTF8.self))")
    }
    precondition(again == record, "\(type) reads back as another record")
    precondition(JSON.encode(again) == written, "\(type): a second write differs from the first")
}
