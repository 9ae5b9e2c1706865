import FarmFuzzScratch
import FarmZip
import Foundation

/// libFuzzer's entry (`bin/fuzz zip`): any bytes as a zip archive, every entry extracted as a worker
/// unpacks a ZIP resource. Nothing is ever written outside the folder, no link is made, and no file
/// holds more than the limits allow.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZip(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let archive = Scratch.file(UnsafeRawBufferPointer(start: start, count: count), named: "fuzz.zip")
    let outside = Scratch.fresh("outside"), folder = outside + "/unzipped"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let limits = ZipLimits(maxEntryBytes: 1 << 20, maxTotalBytes: 4 << 20, maxRatio: 100, ratioFloor: 64 << 10, maxEntries: 64)
    guard let reader = try? ZipReader(path: archive), let entries = try? reader.entries(limits: limits) else { return 0 }
    for entry in entries { _ = try? reader.extract(entry, to: folder, limits: limits) }
    // Only the folder under `outside` may exist there, and under it only folders and plain files.
    let beside = (try? FileManager.default.contentsOfDirectory(atPath: outside)) ?? []
    precondition(beside == ["unzipped"], "written beside the folder: \(beside)")
    var total: Int64 = 0
    for name in FileManager.default.subpaths(atPath: folder) ?? [] {
        var st = stat()
        precondition(lstat(folder + "/" + name, &st) == 0, "\(name) listed but gone")
        let type = st.st_mode & S_IFMT
        precondition(type == S_IFREG || type == S_IFDIR, "\(name) is neither a file nor a folder")
        precondition(Int64(st.st_size) <= limits.maxEntryBytes || type == S_IFDIR, "\(name): \(st.st_size) bytes")
        if type == S_IFREG { total += Int64(st.st_size) }
    }
    precondition(total <= limits.maxTotalBytes, "\(total) bytes extracted")
    return 0
}
