/// The order people expect for numbered names: "Set 2.json" before "Set 10.json", case ignored, ties
/// broken by plain code-point order so the order is total and stable. Stateless.
public enum NaturalOrder {
    public static func areInIncreasingOrder(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.lowercased().unicodeScalars)
        let b = Array(rhs.lowercased().unicodeScalars)
        var i = 0
        var j = 0
        while i < a.count && j < b.count {
            if isDigit(a[i]) && isDigit(b[j]) {
                let runA = digitRun(a, from: &i)
                let runB = digitRun(b, from: &j)
                if runA.count != runB.count { return runA.count < runB.count }
                if runA != runB { return runA.lexicographicallyPrecedes(runB) }
            } else {
                if a[i] != b[j] { return a[i].value < b[j].value }
                i += 1
                j += 1
            }
        }
        if a.count - i != b.count - j { return a.count - i < b.count - j }
        return lhs.unicodeScalars.lexicographicallyPrecedes(rhs.unicodeScalars) { $0.value < $1.value }
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar.value >= 48 && scalar.value <= 57 }

    /// The digits from `index` on, without leading zeros (so "007" and "7" compare equal as numbers).
    private static func digitRun(_ scalars: [Unicode.Scalar], from index: inout Int) -> [UInt32] {
        var run: [UInt32] = []
        while index < scalars.count && isDigit(scalars[index]) {
            if !(run.isEmpty && scalars[index] == "0") { run.append(scalars[index].value) }
            index += 1
        }
        return run
    }
}
