import FarmFuzzScratch
import FarmJSON
import FarmManifest

/// libFuzzer's entry (`bin/fuzz manifest`): any bytes as a manifest, one JSON or text list or a zip of them. A
/// list that reads, written back in its own shape (what `farm export` writes), reads as the same resources.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let lists: [ManifestList]
    if bytes.starts(with: [0x50, 0x4B]) {
        guard let read = try? Manifest.read(path: Scratch.file(bytes, named: "manifest.zip"), displayName: "manifest.zip")
        else { return 0 }
        lists = read
    } else {
        // JSON or a text list (SPEC §15), by the first character other than white space, as `farm add` decides.
        guard let list = try? Manifest.parseList(contents: Array(bytes), name: "fuzz") else { return 0 }
        lists = [list]
    }
    for list in lists {
        let written = JSON.encode(list.form.document(mirrored: list.resources.map {
            ($0.url, $0.id ?? "", $0.sha256, $0.mirrors, $0.out)
        }))
        guard let again = try? Manifest.parseList(json: written, name: list.name) else {
            fatalError("\(list.name) written back does not read: \(String(decoding: written, as: UTF8.self))")
        }
        precondition(again.form == list.form, "\(list.name): read back as \(again.form), not \(list.form)")
        precondition(again.resources.map(\.url) == list.resources.map(\.url), "\(list.name): other URLs read back")
        if list.form != .urls {
            precondition(again.resources.map(\.sha256) == list.resources.map(\.sha256), "\(list.name): other checksums")
        }
        if list.form == .objects {
            precondition(again.resources.map(\.mirrors) == list.resources.map(\.mirrors), "\(list.name): other mirrors")
            precondition(again.resources.map(\.out) == list.resources.map(\.out), "\(list.name): other names")
        }
    }
    return 0
}
