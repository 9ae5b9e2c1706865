import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1

/// The request context of an origin: Hummingbird's core storage plus the connection, which the faults
/// that act below HTTP (a reset, a stall) need. Made by Hummingbird for each request.
struct OriginContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }
}

/// Answers every request of one origin: its faults first, then the resource with ranges, validators and
/// HEAD. Shared by all the origin's connections; its state is behind locks.
struct OriginResponder: HTTPResponder {
    let catalog: Catalog
    let faults: FaultTable
    let log: RequestLog
    let requirements: Requirements

    func respond(to request: Request, context: OriginContext) async throws -> Response {
        // A paged API's page is its own resource, with faults of its own: `path?page=N`.
        let path = catalog.key(request.uri.path, query: request.uri.query)
        let method = request.method
        let sequence = log.begin(method: method.rawValue, path: request.uri.path, query: request.uri.query,
                                 range: request.headers[.range], ifRange: request.headers[.ifRange],
                                 clientPort: context.channel.remoteAddress?.port,
                                 headers: request.headers.map { LoggedHeader(name: $0.name.canonicalName, value: $0.value) })
        let head = method == .head
        let fixture = method == .get || head ? catalog.lookup(path) : nil
        let notModified = fixture.map {
            Conditional.notModified(ifNoneMatch: request.headers[.ifNoneMatch],
                                    ifModifiedSince: request.headers[.ifModifiedSince], fixture: $0)
        } ?? false
        let plan = faults.plan(for: path, sendsBody: method == .get && fixture != nil && !notModified,
                               rangeStart: RangeRequest.firstByte(of: request.headers[.range]),
                               clientPort: context.channel.remoteAddress?.port)
        log.update(sequence) { $0.faults = plan.applied }

        if let refusal = requirements.refusal(for: request.uri.path, headers: request.headers) {
            let text = "\(refusal) \(HTTPResponseStatus(statusCode: refusal).reasonPhrase)\n"
            return small(refusal, text, refusal == 401 ? [.wwwAuthenticate: "Bearer"] : [:], head, sequence)
        }
        switch plan.answer {
        case .status(let code, let retryAfter)?:
            var headers = HTTPFields()
            if let retryAfter { headers[.retryAfter] = retryAfter.value }
            let text = "\(code) \(HTTPResponseStatus(statusCode: code).reasonPhrase)\n"
            return small(code, text, headers, head, sequence)
        case .redirect(let location, let code)?:
            return small(code, "see \(location)\n", [.location: location], head, sequence)
        case .reset?:
            log.end(sequence)
            await Connection.reset(context.channel)
            throw OriginAbort.reset
        default:
            break
        }

        guard method == .get || head else {
            return small(405, "405 Method Not Allowed\n", [.allow: "GET, HEAD"], head, sequence)
        }
        guard let fixture else {
            return small(404, "404 Not Found\n", [:], head, sequence)
        }

        let count = fixture.body.readableBytes
        var headers: HTTPFields = [.contentType: fixture.contentType, .eTag: fixture.etag,
                                   .lastModified: fixture.lastModified]
        if notModified {
            log.update(sequence) { $0.status = 304; $0.complete = true }
            log.end(sequence)
            return Response(status: .notModified, headers: [.eTag: fixture.etag, .lastModified: fixture.lastModified])
        }
        headers[.acceptRanges] = plan.rangesOff ? "none" : "bytes"
        // Range is defined for GET only (RFC 9110 §14.2): a HEAD describes the whole representation.
        let wanted = plan.rangesOff || head
            ? .whole
            : RangeRequest.resolve(range: request.headers[.range],
                                   ifRange: plan.ifRangeIgnored ? nil : request.headers[.ifRange],
                                   etag: fixture.etag, count: count)
        let status: Int, bytes: Range<Int>
        switch wanted {
        case .whole:
            (status, bytes) = (200, 0..<count)
        case .partial(let range):
            (status, bytes) = (206, range)
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(count)"
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(count)"
            headers[.contentLength] = "0"
            log.update(sequence) { $0.status = 416; $0.complete = true }
            log.end(sequence)
            return Response(status: .init(code: 416), headers: headers)
        }
        headers[.contentLength] = String(bytes.count)
        log.update(sequence) { $0.status = status }
        // An empty body: the head alone is the whole response (see `RequestLog.through`).
        if bytes.isEmpty { log.through(sequence) }
        if head {
            log.update(sequence) { $0.complete = true }
            log.end(sequence)
            return Response(status: .init(code: status), headers: headers)
        }
        let writer = BodyWriter(body: fixture.body.getSlice(at: fixture.body.readerIndex + bytes.lowerBound,
                                                            length: bytes.count)!,
                                ending: plan.ending, bytesPerSecond: plan.bytesPerSecond,
                                channel: context.channel, log: log, sequence: sequence)
        return Response(status: .init(code: status), headers: headers,
                        body: ResponseBody(contentLength: bytes.count) { try await writer.write(to: &$0) })
    }

    /// A short text response (an error, a redirect), with the headers every response carries.
    private func small(_ code: Int, _ text: String, _ extra: HTTPFields, _ head: Bool, _ sequence: Int) -> Response {
        let bytes = Array(text.utf8)
        var headers = extra
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.contentLength] = String(bytes.count)
        headers[.eTag] = Fixture.etag(of: bytes)
        headers[.acceptRanges] = "bytes"
        log.update(sequence) {
            $0.status = code
            $0.bodyBytes = head ? 0 : bytes.count
            $0.complete = true
        }
        log.end(sequence)
        return Response(status: .init(code: code), headers: headers,
                        body: head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
