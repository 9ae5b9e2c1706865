import FarmSpool
import Foundation
import Testing

extension RunningFarm {
    /// Every job done once, nowhere else, nothing set aside, and each stored file byte-equal to the origin's.
    public func expectEverythingDownloadedOnce(_ paths: [String], list: String) throws {
        #expect(SpoolFixtures.duplicates(in: spool).isEmpty)
        #expect(SpoolFixtures.corruptFiles(spool).isEmpty)
        #expect(!SpoolFixtures.log(spool).contains("twice"))
        let id = ListID.of(name: list + ".json")
        for (index, path) in paths.enumerated() {
            let file = spool.files + "/" + id + "/" + String(index) + ".png"
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(bytes == bodies[path], "\(file) differs from \(path)")
        }
    }
}
