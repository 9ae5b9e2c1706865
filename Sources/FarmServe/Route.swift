import FoundationEssentials

/// What a request asks for, parsed from its path alone. Lists are named by id and resources by index,
/// never by a path, so nothing the client sends ever becomes a file name. A value.
enum Route: Equatable {
    case index
    case asset(String)
    case status
    case events
    case list(String)
    case file(list: String, index: String, thumb: Bool)
    /// A paged list's cover (its display image), SPEC §7.
    case cover(String)
    case reload(String)
    case scale
    /// POST /api/limit {"rate": "2M"}: the host's bandwidth cap (SPEC §12).
    case limit
    case pause(Bool)
    case reset
    case add
    /// Edits of a list (SPEC §8, §9): items named by their id, percent-decoded from the path.
    case addItem(String)
    case removeItem(list: String, item: String)
    case moveItem(list: String, item: String)
    /// The farm's metrics in Prometheus' text format (SPEC §10), where Prometheus looks for them.
    case metrics

    /// The route of `path`, or nil for anything else.
    init?(path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if parts.isEmpty || parts == ["index.html"] {
            self = .index
            return
        }
        if parts == ["metrics"] {
            self = .metrics
            return
        }
        if parts.count == 1, Page.assets[parts[0]] != nil {
            self = .asset(parts[0])
            return
        }
        guard parts.first == "api" else { return nil }
        let api = Array(parts.dropFirst())
        switch api.count {
        case 1:
            switch api[0] {
            case "status": self = .status
            case "events": self = .events
            case "scale": self = .scale
            case "limit": self = .limit
            case "pause": self = .pause(true)
            case "resume": self = .pause(false)
            case "reset": self = .reset
            case "add": self = .add
            default: return nil
            }
        case 2 where api[0] == "lists":
            self = .list(api[1])
        case 3 where api[0] == "lists" && api[2] == "reload":
            self = .reload(api[1])
        case 3 where api[0] == "lists" && api[2] == "cover":
            self = .cover(api[1])
        case 3 where api[0] == "lists" && api[2] == "items":
            self = .addItem(api[1])
        case 4 where api[0] == "lists" && api[2] == "items":
            guard let item = api[3].percentDecoded else { return nil }
            self = .removeItem(list: api[1], item: item)
        case 5 where api[0] == "lists" && api[2] == "items" && api[4] == "move":
            guard let item = api[3].percentDecoded else { return nil }
            self = .moveItem(list: api[1], item: item)
        case 4 where api[0] == "lists" && (api[3] == "image" || api[3] == "thumb"):
            self = .file(list: api[1], index: api[2], thumb: api[3] == "thumb")
        default:
            return nil
        }
    }

    /// The one method the route takes: reads are GET, whatever changes the farm is POST, but the
    /// removal of an item, which is DELETE.
    var method: String {
        switch self {
        case .index, .asset, .status, .events, .list, .file, .cover, .metrics: return "GET"
        case .reload, .scale, .limit, .pause, .reset, .add, .addItem, .moveItem: return "POST"
        case .removeItem: return "DELETE"
        }
    }

    /// Whether the route changes the farm: those are guarded (`RequestGuard.checkChange`).
    var changes: Bool { method != "GET" }
}
