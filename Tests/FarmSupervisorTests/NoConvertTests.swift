import FarmDesired
import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// `farm start --no-convert` (the benchmark's "conversions off"): kept in control/desired.json, handed
/// by the supervisor to every worker, which then downloads and completes with no display image and
/// no thumbnail.
@Suite(.serialized) struct NoConvertTests {
    @Test func everyWorkerDownloadsAndCompletesWithoutConverting() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Plain", count: 8, size: 20_000)
        try farm.must(["start", "--workers", "2", "--lease", "3", "--no-convert"])
        // The supervisor hands the setting to the workers it starts: what they do shows it below.
        #expect(farm.spool.control.desired().convert == false)
        #expect(farm.waitUntilAllDone(paths.count))
        // Workers that convert nothing never load poppler and cairo (CFarmRenderLoader): their
        // start-up does not pay for them. curl shows the map was read.
        for pid in farm.pids(.worker) {
            // Read to the end: String(contentsOfFile:) stops at a /proc file's first page.
            let maps = String(decoding: FileHandle(forReadingAtPath: "/proc/\(pid)/maps")?.readDataToEndOfFile() ?? Data(),
                              as: UTF8.self)
            #expect(maps.contains("libcurl") && !maps.contains("libpoppler") && !maps.contains("libcairo"),
                    "worker \(pid) maps poppler or cairo, or its map could not be read")
        }
        try farm.expectEverythingDownloadedOnce(paths, list: "Plain")
        let list = ListID.of(name: "Plain.json")
        for index in paths.indices {
            let sidecar = try #require(farm.spool.sidecars.last(JobName(list: list, index: index)))
            #expect(sidecar.status == .done && sidecar.kind == "png" && sidecar.file != nil)
            #expect(sidecar.image == nil && sidecar.thumb == nil)
        }
        // These bodies are PNG magic and noise: converting them would have logged "no thumbnail".
        #expect(!SpoolFixtures.log(farm.spool).contains("thumbnail"))
        let outputs = try FileManager.default.contentsOfDirectory(atPath: farm.spool.files + "/" + list)
        #expect(outputs.sorted() == paths.indices.map { "\($0).png" }.sorted())

        // A plain start turns conversions back on.
        try farm.must(["stop"])
        try farm.must(["start", "--workers", "1", "--lease", "3"])
        #expect(farm.spool.control.desired().convert == true)
    }
}
