import ArgumentParser
import FarmConvert
import FarmFixtures
import FarmSystem
import Foundation
import Glibc

/// `render --pdf FILE --runs N`: page 1 of FILE rendered to its display image by our PDFRenderer
/// (in-process, and as a whole process), against `pdftoppm` at the same size; then thumbnails
/// (a 4000×3000 JPEG and the rendered page to 256 px). Prints p50 and min of each.
struct RenderBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Time rendering page 1 of a PDF (ours vs pdftoppm) and making thumbnails."
    )

    @Option(help: "The PDF whose page 1 is rendered.") var pdf: String
    @Option(help: "Runs of each measurement.") var runs = 20
    @Option(help: "Longest side of the display image, in pixels.") var size = 1600
    @Option(help: "The pdftoppm to compare with (skipped when missing).") var pdftoppm = "/usr/bin/pdftoppm"
    @OptionGroup var workspace: Workspace
    @Option(help: .hidden) var once: String?

    func run() throws {
        if let once {
            // One render in a fresh process, so a whole `farm` step can be timed like pdftoppm's.
            try PDFRenderer.renderFirstPage(pdf: pdf, to: once, maxSide: size)
            return
        }
        let work = try workspace.make("render")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let page = work + "/page1.png"

        var rendered = (width: 0, height: 0)
        let ours = try times { rendered = try PDFRenderer.renderFirstPage(pdf: pdf, to: page, maxSide: size) }
        print("page 1 of \(pdf) at \(rendered.width)×\(rendered.height) px, \(runs) runs, \(fileSize(page)) bytes of PNG")
        report("ours, in-process (render + PNG)", ours)
        let decoded = try PNGImage(path: page)
        let encoding = try times { try decoded.write(to: work + "/encoded.png") }
        report("  of which PNG encoding (grey when the page is)", encoding)
        let rgbEncoding = try times { try decoded.write(to: work + "/rgb.png", grayWhenPossible: false) }
        report("  PNG encoding as RGB, for comparison (\(fileSize(work + "/rgb.png")) B)", rgbEncoding)
        let oursSpawned = try times {
            try spawn(Spawned.me, ["render", "--pdf", pdf, "--size", String(size), "--once", work + "/once.png"])
        }
        report("ours, as a process", oursSpawned)

        if access(pdftoppm, X_OK) == 0 {
            let theirs = try times {
                try spawn(pdftoppm, ["-png", "-singlefile", "-f", "1", "-l", "1", "-scale-to", String(size), pdf,
                                     work + "/pdftoppm"])
            }
            let output = try PNGImage(path: work + "/pdftoppm.png")
            report("pdftoppm -scale-to \(size) (\(output.width)×\(output.height), \(fileSize(work + "/pdftoppm.png")) B)",
                   theirs)
            print(String(format: "ratio pdftoppm / ours: %.2f in-process, %.2f process to process",
                         theirs.median / ours.median, theirs.median / oursSpawned.median))
        } else {
            print("\(pdftoppm) not found: apt-get install -y poppler-utils to compare")
        }

        let jpeg = work + "/photo.jpg"
        try JPEGEncoder.write(photo(width: 4000, height: 3000), width: 4000, height: 3000, layout: .rgb, to: jpeg)
        var thumb = (width: 0, height: 0)
        let fromJPEG = try times { thumb = try Thumbnail.make(from: jpeg, kind: .jpg, to: work + "/photo.thumb.png") }
        report("thumbnail JPEG 4000×3000 (\(fileSize(jpeg)) B) → \(thumb.width)×\(thumb.height)", fromJPEG)
        let fromPNG = try times { thumb = try Thumbnail.make(from: page, kind: .png, to: work + "/page1.thumb.png") }
        report("thumbnail PNG \(rendered.width)×\(rendered.height) → \(thumb.width)×\(thumb.height)", fromPNG)
    }

    /// Seconds taken by each of `runs` calls of `body`.
    private func times(_ body: () throws -> Void) throws -> [Double] {
        try (0..<max(1, runs)).map { _ in
            let start = Clock.monotonic()
            try body()
            return Clock.monotonic() - start
        }
    }

    private func report(_ label: String, _ values: [Double]) {
        print(label.padded(58) + String(format: "p50 %8.2f ms   min %8.2f ms", values.median * 1000,
                              (values.min() ?? 0) * 1000))
    }

    private func fileSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// A photo-like RGB image: smooth gradients plus fine noise, so it is as costly to decode as a
    /// real photo (flat colours would make entropy decoding look free).
    private func photo(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var seed: UInt32 = 0x9E37_79B9
        for y in 0..<height {
            for x in 0..<width {
                seed ^= seed << 13
                seed ^= seed >> 17
                seed ^= seed << 5
                let noise = Int(seed & 31)
                let i = (y * width + x) * 3
                pixels[i] = UInt8(min(255, x * 200 / width + noise))
                pixels[i + 1] = UInt8(min(255, y * 200 / height + noise))
                pixels[i + 2] = UInt8(min(255, (x + y) * 100 / (width + height) + 2 * noise))
            }
        }
        return pixels
    }

    /// Runs `path` with `arguments` through posix_spawn and waits; a non-zero exit is an error.
    private func spawn(_ path: String, _ arguments: [String]) throws {
        let code = try Spawned.attached(path, arguments)
        guard code == 0 else { throw ValidationError("\(path) \(arguments.joined(separator: " ")) exited \(code)") }
    }
}
