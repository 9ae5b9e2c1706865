import FarmJSON
import FarmZip
import FoundationEssentials

/// The demo's bundled sample set: four lists with every kind of resource and every shape of list,
/// two resources that fail on purpose, and a few large throttled files so progress shows for a while.
///
/// The pictures are drawn on the spot (`SamplePictures`): the three large grainy photos alone would put
/// about 6 MB into the binary. The three PDFs are small files kept in Samples/ and compiled in, so that
/// farm needs no PDF writer (it only reads PDFs). The archives and the manifest are zipped here, the
/// manifest once the origin's port, which its URLs name, is known.
public struct SampleSet: Sendable {
    /// One resource: where the origin serves it, what it serves, and how.
    public struct Resource: Sendable {
        public let path: String
        let bytes: [UInt8]
        let bytesPerSecond: Int?
        /// Why this resource must end in error (nil: it must end done).
        public let expectedError: String?
    }

    /// One list: its file name in the manifest, whether it uses the `items` shape, its resources.
    public struct List: Sendable {
        public let name: String
        let itemsShape: Bool
        public let resources: [Resource]
    }

    public let lists: [List]

    /// Draws the set (about a second in a release build).
    public static func make() throws -> SampleSet {
        let large = try (1...3).map { n in
            Resource(path: "/large/panorama-\(n).jpg",
                     bytes: try SamplePictures.jpeg(width: 1600, height: 1100, seed: n, grain: true),
                     bytesPerSecond: 350_000, expectedError: nil)
        }
        let brochure = PackageResources.brochure_pdf
        let icon = try SamplePictures.png(width: 256, height: 256, label: "icon", hue: 0.8)
        return SampleSet(lists: [
            List(name: "Photos.json", itemsShape: false, resources: [
                Resource(path: "/photos/lake.jpg", bytes: try SamplePictures.jpeg(width: 1600, height: 1066, seed: 1),
                         bytesPerSecond: nil, expectedError: nil),
                Resource(path: "/photos/forest.jpg", bytes: try SamplePictures.jpeg(width: 1200, height: 1600, seed: 2),
                         bytesPerSecond: nil, expectedError: nil),
                Resource(path: "/photos/dunes.jpg", bytes: try SamplePictures.jpeg(width: 1024, height: 768, seed: 3),
                         bytesPerSecond: 200_000, expectedError: nil),
                Resource(path: "/photos/harbour.png",
                         bytes: try SamplePictures.png(width: 1200, height: 800, label: "harbour", hue: 0.2),
                         bytesPerSecond: nil, expectedError: nil),
                Resource(path: "/photos/poster.jpg",
                         bytes: Array("<!DOCTYPE html><html><body><h1>Not an image</h1></body></html>\n".utf8),
                         bytesPerSecond: nil, expectedError: "unsupported content"),
            ]),
            List(name: "Documents.json", itemsShape: true, resources: [
                Resource(path: "/docs/guide.pdf", bytes: PackageResources.guide_pdf,
                         bytesPerSecond: nil, expectedError: nil),
                Resource(path: "/docs/report.pdf", bytes: PackageResources.report_pdf,
                         bytesPerSecond: 20_000, expectedError: nil),
                Resource(path: "/docs/missing.pdf", bytes: [], bytesPerSecond: nil, expectedError: "HTTP 404"),
            ]),
            List(name: "Archives.json", itemsShape: true, resources: [
                Resource(path: "/zips/icons.zip",
                         bytes: try zip([("README.txt", Array("Icons for the demo.\n".utf8)), ("icons/icon.png", icon)]),
                         bytesPerSecond: nil, expectedError: nil),
                Resource(path: "/zips/brochure.zip", bytes: try zip([("brochure.pdf", brochure)]),
                         bytesPerSecond: nil, expectedError: nil),
            ]),
            List(name: "Large files.json", itemsShape: false, resources: large),
        ])
    }

    /// Serves every resource (a 404 for those with no bytes) and the manifest at `/manifest.zip`.
    public func serve(on origin: SampleOrigin) throws {
        for list in lists {
            for resource in list.resources where !resource.bytes.isEmpty {
                origin.serve(path: resource.path, bytes: resource.bytes, bytesPerSecond: resource.bytesPerSecond)
            }
        }
        origin.serve(path: "/manifest.zip", bytes: try manifest(on: origin), contentType: "application/zip")
    }

    /// The manifest: a zip with the lists in a folder (and the Finder litter farm must skip).
    func manifest(on origin: SampleOrigin) throws -> [UInt8] {
        var entries: [(name: String, bytes: [UInt8])] = []
        for (n, list) in lists.enumerated() {
            let urls = list.resources.map { JSONValue.string(origin.url(for: $0.path)) }
            let json: JSONValue = list.itemsShape
                ? .object([JSONMember("items", .array(urls.enumerated().map { i, url in
                    .object([JSONMember("uuid", .string("demo-" + twoDigits(n) + "-" + twoDigits(i))),
                             JSONMember("imageUrlString", url)]) }))])
                : .array(urls)
            entries.append(("farm demo/" + list.name, JSON.encode(json, .pretty)))
        }
        entries.append(("__MACOSX/farm demo/._Photos.json", [0, 5, 22, 7]))
        return try Self.zip(entries)
    }

    private static func zip(_ entries: [(name: String, bytes: [UInt8])]) throws -> [UInt8] {
        try SamplePictures.withTemporaryFile { path in try ZipWriter.write(path: path, entries: entries) }
    }
}

/// `n` with at least two digits, as the demo's ids number lists and items (`demo-03-07`).
private func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
