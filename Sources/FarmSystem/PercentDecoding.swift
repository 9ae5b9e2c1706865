extension StringProtocol {
    /// The text with each `%XX` made the byte it stands for, read as UTF-8; nil when a `%` is not followed by
    /// two hex digits or the bytes are no UTF-8: Foundation's `removingPercentEncoding`, which
    /// FoundationEssentials lacks, for a URL's last segment made a file name and a route's part.
    public var percentDecoded: String? {
        var bytes: [UInt8] = []
        var utf8 = Array(self.utf8)[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2, let high = hexValue(utf8.popFirst()!), let low = hexValue(utf8.popFirst()!) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 48...57: byte - 48
    case 65...70: byte - 55
    case 97...102: byte - 87
    default: nil
    }
}
