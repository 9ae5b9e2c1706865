/// The order people expect for numbered names, as Finder sorts them: "Set 2.json" before
/// "Set 10.json", case ignored, ties broken by code points so the order is total. Stateless.
/// (FarmManifest has the same rule for manifests; the status does not depend on that module.)
public enum NameOrder {
    public static func areInIncreasingOrder(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.lowercased().unicodeScalars), b = Array(rhs.lowercased().unicodeScalars)
        var i = 0, j = 0
        while i < a.count && j < b.count {
            if isDigit(a[i]) && isDigit(b[j]) {
                let x = number(a, &i), y = number(b, &j)
                if x.count != y.count { return x.count < y.count }
                if x != y { return x.lexicographicallyPrecedes(y) }
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

    /// The run of digits from `index` on, leading zeros dropped, so runs compare by length then digits.
    private static func number(_ scalars: [Unicode.Scalar], _ index: inout Int) -> [UInt32] {
        var digits: [UInt32] = []
        while index < scalars.count && isDigit(scalars[index]) {
            if !(digits.isEmpty && scalars[index] == "0") { digits.append(scalars[index].value) }
            index += 1
        }
        return digits
    }
}
