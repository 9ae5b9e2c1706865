import FarmConvert
import FarmFuzzScratch
import Foundation

/// libFuzzer's entry (`bin/fuzz image`): any bytes as a downloaded picture, told by its first bytes and made
/// into a thumbnail as a worker does (libjpeg-turbo through farm's C shim, PNGs through cairo, the first frame
/// of GIFs and WebPs through giflib and libwebp, each behind its C shim). A thumbnail
/// made is a whole PNG no larger than asked; a picture that fails leaves no thumbnail, whole or half-written.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImage(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    guard let kind = Kind.sniff(bytes.prefix(16)), kind.isPicture else { return 0 }
    let picture = Scratch.file(bytes, named: "picture." + kind.rawValue)
    let thumbnail = Scratch.fresh("thumbnail") + "/thumb.png"
    let made = try? Thumbnail.make(from: picture, kind: kind, to: thumbnail, maxSide: 64)
    let written = FileManager.default.contents(atPath: thumbnail)
    let left = (try? FileManager.default.contentsOfDirectory(atPath: Scratch.root + "/thumbnail")) ?? []
    guard let made else {
        precondition(written == nil && left.isEmpty, "a failed thumbnail left \(left)")
        return 0
    }
    precondition(made.width >= 1 && made.height >= 1 && max(made.width, made.height) <= 64, "a thumbnail of \(made)")
    precondition(written?.starts(with: [0x89, 0x50, 0x4E, 0x47]) == true, "the thumbnail is no PNG")
    precondition(left == ["thumb.png"], "beside the thumbnail: \(left)")
    return 0
}
