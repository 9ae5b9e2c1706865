import FarmJSON
import FarmLists
import FarmMetricsPage
import FarmSpool
import FarmStatus
import FoundationEssentials
import Hummingbird

/// Answers every request of `farm serve`: the guard first, then the route. Routes name lists by id and
/// resources by index, never by path; anything unknown is a 404, a known path with the wrong method a
/// 405, a bad body a 400, each with `{"error": "…"}`. Shared by every connection; immutable.
///
///     GET  /  /app.js  /app.css                  the page (screens by hash: #/list/<id>, #/list/<id>/view/<i>)
///     GET  /api/status                           the whole-spool summary (SPEC §4)
///     GET  /api/lists/<id>                       one list with its resources
///     GET  /api/lists/<id>?offset=O&limit=L&q=…  a window of them (at most 500), among those matching q
///     GET  /api/lists/<id>/<index>/image|thumb   a resource's display image or thumbnail
///     GET  /api/lists/<id>/cover                 a paged list's cover
///     GET  /api/events[?list=<id>[&offset&limit&q]]  server-sent events: `summary`, and `list` (a window)
///     POST /api/scale {"workers": N, "transfers": T}  /api/limit {"rate": "2M"}  /api/pause  /api/resume  /api/reset  /api/add {"source": "…"}
///     POST /api/lists/<id>/reload
///     POST /api/lists/<id>/items {"url": "…", "id"?: "…", "at"?: N}   DELETE /api/lists/<id>/items/<itemId>
///     POST /api/lists/<id>/items/<itemId>/move {"to": N}
///     GET  /metrics                              the farm's metrics in Prometheus' text format (SPEC §10)
///     POST /jsonrpc                              aria2's JSON-RPC 2.0 (SPEC §16; `RPCEndpoint`)
struct ServeResponder: HTTPResponder {
    typealias Context = ServeContext

    let spool: Spool
    let page: Page
    let hub: StatusHub
    let access: ServeAccess
    let guarding: RequestGuard
    let actions: Actions
    /// The windows of lists' views that `GET /api/lists/<id>?offset…` and the event streams answer with.
    let windows: ListWindows
    /// aria2's JSON-RPC at /jsonrpc, guarded by its token rather than the page's.
    let rpc: RPCEndpoint

    func respond(to request: Request, context: ServeContext) async throws -> Response {
        do {
            try access.check(request, from: context.remoteAddress)
            try guarding.checkHost(request)
            if request.uri.path == RPCEndpoint.path { return try await rpc.respond(to: request) }
            return try await route(request)
        } catch let refusal as Refusal {
            return Reply.error(refusal.error, allow: refusal.allow)
        } catch let error as ServeError where error.code == .unauthorized {
            var response = Reply.error(error)
            response.headers[.wwwAuthenticate] = ServeAccess.challenge
            return response
        } catch let error as ServeError {
            return Reply.error(error)
        } catch {
            return Reply.error(ServeError(.internalServerError, "internal error: \(error)"))
        }
    }

    private func route(_ request: Request) async throws -> Response {
        guard let route = Route(path: request.uri.path) else {
            throw ServeError(.notFound, "nothing here: \(request.uri.path) is not a page or an API of farm serve")
        }
        guard request.method.rawValue == route.method else {
            let wrong = "\(request.uri.path) takes \(route.method), not \(request.method.rawValue)"
            throw Refusal(error: ServeError(.methodNotAllowed, wrong), allow: route.method)
        }
        if route.changes { try guarding.checkChange(request) }
        let spool = spool
        var request = request
        switch route {
        case .index:
            return Reply.bytes(page.index, type: "text/html; charset=utf-8")
        case .asset(let name):
            let asset = Page.assets[name]!
            return Reply.bytes(asset.bytes, type: asset.type, cache: "no-cache")
        case .status:
            return Reply.bytes(hub.latest + [0x0A], type: "application/json")
        case .events:
            let parameters = request.uri.queryParameters
            let list = parameters.get("list")
            if let list { _ = try record(list) }
            return EventStream.response(hub: hub, spool: spool, windows: windows, list: list,
                                        window: try WindowQuery(parameters) ?? WindowQuery())
        case .list(let id):
            _ = try record(id)
            let window = try WindowQuery(request.uri.queryParameters)
            let windows = windows, summary = hub.summary
            guard let view = try await Blocking.run({
                // No window asked for: the whole list, as `farm status LIST --json` has it.
                guard let window else { return ListView.build(spool, listID: id)?.held(by: Stall.of(spool)) }
                return window.view(windows, spool, id: id, summary: summary)?.held(by: Stall.of(spool))
            }) else {
                throw ServeError(.notFound, "no list \(id) in the spool")
            }
            return Reply.json(view)
        case .file(let id, let index, let thumb):
            return try await file(list: id, index: index, thumb: thumb)
        case .cover(let id):
            let list = try record(id)
            guard let path = Lists(spool).pageState(ofList: id)?.cover else {
                throw ServeError(.notFound, "\(list.record.name) has no cover")
            }
            let served = try await Blocking.run { try ServedFile(path, inside: spool) }
            return served.response()
        case .metrics:
            let page = try await Blocking.run { MetricsPage.render(spool) }
            return Reply.bytes(page, type: MetricsPage.contentType)
        case .reload(let id):
            return Reply.message(try await act { try $0.reload(id) })
        case .scale:
            let body = try await decode(Scale.self, from: &request, example: #"{"workers": 4}"#)
            if let transfers = body.transfers {
                let said = try await act { try $0.scale(transfers: transfers) }
                guard let workers = body.workers else { return Reply.message(said) }
                return Reply.message(said + "; " + (try await act { try $0.scale(workers) }))
            }
            guard let workers = body.workers else {
                throw ServeError(.badRequest, #"the body must be JSON like {"workers": 4} or {"transfers": 8}"#)
            }
            return Reply.message(try await act { try $0.scale(workers) })
        case .limit:
            let body = try await decode(Limit.self, from: &request, example: #"{"rate": "2M"}"#)
            return Reply.message(try await act { try $0.limit(body.rate) })
        case .pause(let paused):
            return Reply.message(try await act { try $0.pause(paused) })
        case .reset:
            return Reply.message(try await act { try $0.reset() })
        case .add:
            let body = try await decode(Add.self, from: &request, example: #"{"source": "https://…/lists.zip"}"#)
            let source = body.source.trimmingSpaces()
            return Reply.message(try await act { try $0.add(source) })
        case .addItem(let id):
            _ = try record(id)
            let body = try await decode(NewItem.self, from: &request, example: #"{"url": "https://…/a.jpg"}"#)
            return Reply.message(try await act { try $0.addItem(list: id, url: body.url, id: body.id, at: body.at) })
        case .removeItem(let id, let item):
            _ = try record(id)
            return Reply.message(try await act { try $0.removeItem(list: id, id: item) })
        case .moveItem(let id, let item):
            _ = try record(id)
            let body = try await decode(Move.self, from: &request, example: #"{"to": 0}"#)
            return Reply.message(try await act { try $0.moveItem(list: id, id: item, to: body.to) })
        }
    }

    /// A resource's image or thumbnail, found through the status (never a path from the client).
    private func file(list id: String, index text: String, thumb: Bool) async throws -> Response {
        let list = try record(id)
        guard let index = Int(text), index >= 0, index < list.record.total else {
            throw ServeError(.notFound, "\(list.record.name) has \(list.record.total) resource(s): "
                + "the index goes from 0 to \(list.record.total - 1), not \(text)")
        }
        let spool = spool
        let served = try await Blocking.run { () throws -> ServedFile in
            let path: String
            if thumb {
                guard let resource = ListView.resource(spool, listID: id, index: index) else {
                    throw ServeError(.notFound, "\(list.record.name) is no longer in the spool")
                }
                guard let found = resource.thumb ?? (resource.status == .done ? resource.image : nil) else {
                    throw ServeError(.notFound,
                                     "resource \(index) of \(list.record.name) has no thumbnail (\(resource.text))")
                }
                path = found
            } else {
                do { path = try Viewer.image(spool, list: list, index: index) } catch {
                    throw ServeError(.notFound, "\(error)")
                }
            }
            return try ServedFile(path, inside: spool)
        }
        return served.response()
    }

    /// The published list `id`; 404 for an unknown or malformed id.
    private func record(_ id: String) throws(ServeError) -> PublishedList {
        try actions.list(id)
    }

    private func act(_ action: @escaping @Sendable (Actions) throws -> String) async throws -> String {
        let actions = actions
        return try await Blocking.run { try action(actions) }
    }

    private func decode<Body: JSONReadable>(_ type: Body.Type, from request: inout Request,
                                            example: String) async throws -> Body {
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: 64 * 1024) } catch {
            throw ServeError(.contentTooLarge, "the body is too large (64 KB at most)")
        }
        guard let body = JSON.decode(Body.self, from: buffer.readableBytesView) else {
            throw ServeError(.badRequest, "the body must be JSON like \(example)")
        }
        return body
    }

    /// The body of POST /api/scale: `{"workers": N}`, `{"transfers": T}` or both.
    private struct Scale: JSONReadable {
        let workers: Int?
        let transfers: Int?
        init(json: JSONValue) throws(JSONMismatch) {
            workers = try json.decodeIfPresent("workers")
            transfers = try json.decodeIfPresent("transfers")
        }
    }

    /// The body of POST /api/limit: `{"rate": "2M"}` (as `farm limit` reads it; `"0"` lifts the cap), or a
    /// number of bytes a second.
    private struct Limit: JSONReadable {
        let rate: String
        init(json: JSONValue) throws(JSONMismatch) {
            if let bytes: Int = try? json.decode("rate") { rate = String(bytes) } else { rate = try json.decode("rate") }
        }
    }

    /// The body of POST /api/lists/<id>/items: `{"url": "…"}`, with an `id` and a position `at` if wanted.
    private struct NewItem: JSONReadable {
        let url: String
        let id: String?
        let at: Int?
        init(json: JSONValue) throws(JSONMismatch) {
            url = try json.decode("url")
            id = try json.decodeIfPresent("id")
            at = try json.decodeIfPresent("at")
        }
    }

    /// The body of POST /api/lists/<id>/items/<itemId>/move: `{"to": N}`.
    private struct Move: JSONReadable {
        let to: Int
        init(json: JSONValue) throws(JSONMismatch) { to = try json.decode("to") }
    }

    /// The body of POST /api/add: `{"source": "…"}`.
    private struct Add: JSONReadable {
        let source: String
        init(json: JSONValue) throws(JSONMismatch) { source = try json.decode("source") }
    }
}

/// A 405, with the method(s) the route takes.
struct Refusal: Error {
    let error: ServeError
    let allow: String
}
