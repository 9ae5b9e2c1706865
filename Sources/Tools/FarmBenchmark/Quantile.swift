extension Array where Element == Double {
    /// The value at `quantile` (0 to 1) of these values, by rank: at 0.5 the median (the upper one of
    /// an even count), at 1 the largest. The array must not be empty.
    func quantile(_ quantile: Double) -> Double {
        let sorted = self.sorted()
        return sorted[Swift.min(sorted.count - 1, Int(Double(sorted.count) * quantile))]
    }

    var median: Double { quantile(0.5) }
}
