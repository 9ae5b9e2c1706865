extension String {
    /// This text as a cell of a column `width` characters wide in the tables the benchmarks print:
    /// padded with spaces, and followed by at least one even when it is wider.
    func padded(_ width: Int) -> String {
        self + String(repeating: " ", count: Swift.max(1, width - count))
    }
}
