import FarmSpool
import FarmSystem
import Hummingbird
import NIOCore
import SystemPackage

/// An image of the spool on its way to the browser. Paths never come from the client: the handler
/// finds them in the status (a resource's `image` or `thumb`), and this type still refuses anything
/// that, once every symlink is resolved, is not a regular JPG or PNG file inside the spool.
///
/// Owns its descriptor until the response body has been written (or dropped). One request's task.
final class ServedFile: Sendable {
    private let descriptor: SystemPackage.FileDescriptor
    let size: Int
    let type: String

    /// Opens `path`, which must resolve to a JPG or PNG file inside `spool`.
    init(_ path: String, inside spool: Spool) throws(ServeError) {
        guard let real = try? FileSystem.realPath(path) else {
            throw ServeError(.notFound, "the file of this resource is gone; reloading the list makes it again")
        }
        guard real.hasPrefix(spool.root + "/") else {
            throw ServeError(.forbidden, "refused: the file of this resource is outside the spool")
        }
        do { descriptor = try SystemPackage.FileDescriptor.open(real, .readOnly, options: .noFollow) } catch {
            throw ServeError(.notFound, "cannot open the file of this resource: \(error)")
        }
        guard let info = try? descriptor.status(), info.isRegularFile else {
            descriptor.closeQuietly()
            throw ServeError(.forbidden, "refused: the file of this resource is not a regular file")
        }
        size = Int(info.size)
        var head = [UInt8](repeating: 0, count: FileMagic.length)
        let count = head.withUnsafeMutableBytes { [descriptor] in (try? descriptor.read(at: 0, into: $0)) ?? 0 }
        switch FileMagic.of(Array(head.prefix(count))) {
        case .png: type = "image/png"
        case .jpg: type = "image/jpeg"
        default:
            descriptor.closeQuietly()
            throw ServeError(.unsupportedMediaType, "the file of this resource is not a JPG or PNG image")
        }
    }

    deinit { descriptor.closeQuietly() }

    /// The file in 64 KB reads, so a large photo never sits in memory whole.
    func response() -> Response {
        var headers = Reply.securityHeaders
        headers[.contentType] = type
        headers[.contentLength] = String(size)
        // Reloading a list rewrites its files under the same names: always ask again.
        headers[.cacheControl] = "no-cache"
        let body = ResponseBody(contentLength: size) { [self] writer in
            var offset = 0
            while offset < size {
                let start = offset
                let chunk = try await Blocking.run { try self.read(at: start) }
                guard !chunk.isEmpty else { break }
                try await writer.write(ByteBuffer(bytes: chunk))
                offset += chunk.count
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    private func read(at offset: Int) throws(ServeError) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: min(65_536, size - offset))
        var failure: Errno?
        let count = chunk.withUnsafeMutableBytes { buffer in
            do throws(Errno) { return try descriptor.read(at: offset, into: buffer) } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw ServeError(.internalServerError, "cannot read the file: \(failure)") }
        return Array(chunk[0..<count])
    }
}
