import FarmJSON
import HTTPTypes
import Hummingbird
import NIOCore

/// The answers of the server: JSON bodies (`{"error": "…"}` for every refusal), with the headers every
/// response carries. Stateless.
enum Reply {
    /// Sent with everything: the page may load only its own scripts, styles and images (no CDN, no
    /// inline script), may not be framed, and types are never sniffed.
    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy: "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'",
        .xContentTypeOptions: "nosniff",
        HTTPField.Name("X-Frame-Options")!: "DENY",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
    ]

    static func json(_ value: some JSONWritable, status: Int = 200) -> Response {
        bytes(JSON.encode(value), type: "application/json", status: status)
    }

    static func error(_ error: ServeError, allow: String? = nil) -> Response {
        let body = JSONValue.object([JSONMember("error", .string(error.description))])
        var response = json(body, status: error.code.code)
        if let allow { response.headers[.allow] = allow }
        return response
    }

    static func message(_ text: String) -> Response { json(JSONValue.object([JSONMember("message", .string(text))])) }

    static func bytes(_ bytes: [UInt8], type: String, status: Int = 200, cache: String = "no-store") -> Response {
        var headers = securityHeaders
        headers[.contentType] = type
        headers[.cacheControl] = cache
        headers[.contentLength] = String(bytes.count)
        return Response(status: .init(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
