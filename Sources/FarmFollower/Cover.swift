import FarmConvert
import FarmLists
import FarmPages
import FarmSpool
import FarmSystem
import FarmTransfer

/// A paged list's cover (`--list-cover`, SPEC §7): downloaded once by the follower to
/// `files/<list>/cover.<kind>`, and its display image made beside it as a resource's would be (a PDF's
/// page 1 rendered, a ZIP's first image). Stateless.
enum Cover {
    enum Outcome: Equatable {
        /// The display image's path.
        case made(String)
        /// Why there is none, for good.
        case failed(String)
        /// Told to stop half-way: try again next time.
        case stopped
    }

    /// The most a cover may weigh.
    static let maxBytes = 64 << 20

    static func make(_ url: String, ofList id: String, spool: Spool, fetch: PageFetch, retry: RetryPolicy,
                     convert: Bool) -> Outcome {
        let base = Lists(spool).coverBase(ofList: id)
        do { try FileSystem.ensureDirectory(spool.outputDirectory(ofList: id)) } catch {
            return .failed("cannot make \(spool.outputDirectory(ofList: id)): \(error)")
        }
        var attempt = 1
        let bytes: [UInt8]
        while true {
            do {
                bytes = try fetch.body(url, maxSize: maxBytes,
                                       request: RequestOptions.decoded(spool.lists.requestOptions(ofList: id)))
                break
            } catch {
                if error.kind == .aborted { return .stopped }
                guard let delay = retry.delay(after: error, attempt: attempt) else { return .failed(error.description) }
                attempt += 1
                if !Clock.pause(delay, unless: fetch.stopping) { return .stopped }
            }
        }
        guard let kind = Kind.sniff(bytes) else { return .failed("unsupported content") }
        let file = base + "." + kind.fileExtension
        do { try AtomicFile.write(bytes, to: file) } catch { return .failed("cannot store \(file): \(error)") }
        guard convert || kind == .jpg || kind == .png else { return .failed("no display image: conversions are off") }
        do { return .made(try DisplayImage.make(for: file, kind: kind, base: base).image) } catch {
            return .failed(error.description)
        }
    }
}
