extension StringProtocol {
    /// The text without the spaces and tabs at either end (what a header's value or a typed rate may
    /// carry): Foundation's `trimmingCharacters(in: .whitespaces)`, which FoundationEssentials lacks.
    public func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = lastIndex(where: { !isSpace($0) })!
        return String(self[first...last])
    }
}

extension String {
    /// The text cut or filled with spaces to `width` characters: a column of a table printed as text
    /// (Foundation's `padding(toLength:withPad:startingAt:)` with a space).
    public func padded(to width: Int) -> String {
        count >= width ? String(prefix(width)) : self + String(repeating: " ", count: width - count)
    }
}
