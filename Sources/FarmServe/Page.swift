import FoundationEssentials

/// The page and its assets, compiled into the binary from Assets/ (`PackageResources`): farm serves
/// everything the browser needs and nothing comes from anywhere else. Immutable.
struct Page: Sendable {
    /// index.html with this server's token in its `farm-token` meta tag, for the page's requests.
    let index: [UInt8]

    init(token: String) {
        let html = String(decoding: PackageResources.index_html, as: UTF8.self)
        index = Array(html.replacing("{{FARM_TOKEN}}", with: token).utf8)
    }

    /// The static assets by URL path, with their types.
    static let assets: [String: (bytes: [UInt8], type: String)] = [
        "app.js": (PackageResources.app_js, "text/javascript; charset=utf-8"),
        "grid.js": (PackageResources.grid_js, "text/javascript; charset=utf-8"),
        "viewer.js": (PackageResources.viewer_js, "text/javascript; charset=utf-8"),
        "app.css": (PackageResources.app_css, "text/css; charset=utf-8"),
    ]
}
