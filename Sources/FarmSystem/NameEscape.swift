/// Text made into one component of a spool file name that no text can break: a-z, 0-9, `.` and `-` as
/// they are, every other byte as `%xx` (lower-case hex), so the result holds no `/`, no upper case, no
/// `_` or `@` (separators of the names it goes into) and no two texts give one name. Used for the hosts
/// of URLs (FarmHosts' `HostKey`) and the machines that share a spool (FarmSpool's `FarmHost`). Stateless;
/// any thread.
public enum NameEscape {
    /// Whether `byte` stands for itself in an escaped name.
    public static func isPlain(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    public static func escape(_ text: some StringProtocol) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            if isPlain(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func unescape(_ text: some StringProtocol) -> String {
        var bytes: [UInt8] = []
        var utf8 = Substring(text).utf8[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
