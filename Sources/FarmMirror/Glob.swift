/// fnmatch(3) as wget calls it for `--accept`, `--reject` and `--exclude-dirs`: `*`, `?`, `[...]` (with
/// `!` or `^` to negate, ranges), a backslash quoting the next character; with `pathname`, wildcards never
/// match "/". Bytes, case-sensitive (wget's default). Backtracking only to the last `*`: linear per star.
enum Glob {
    static func matches(_ pattern: String, _ text: String, pathname: Bool = false) -> Bool {
        let pattern = Array(pattern.utf8), text = Array(text.utf8)
        var p = 0, t = 0
        var star: (p: Int, t: Int)?
        while t < text.count {
            if p < pattern.count, let next = step(pattern, p, text[t], pathname: pathname) {
                p = next
                t += 1
                continue
            }
            if p < pattern.count && pattern[p] == 0x2A {
                star = (p, t)
                p += 1
                continue
            }
            // Back to the last star, which eats one more byte (never a "/" with `pathname`).
            guard let last = star, !(pathname && text[last.t] == 0x2F) else { return false }
            star = (last.p, last.t + 1)
            p = last.p + 1
            t = last.t + 1
        }
        while p < pattern.count && pattern[p] == 0x2A { p += 1 }
        return p == pattern.count
    }

    /// The pattern position after matching `byte` at `p` with anything but a star, or nil.
    private static func step(_ pattern: [UInt8], _ p: Int, _ byte: UInt8, pathname: Bool) -> Int? {
        switch pattern[p] {
        case 0x2A:
            return nil
        case 0x3F:
            return pathname && byte == 0x2F ? nil : p + 1
        case 0x5B:
            guard let (matched, end) = bracket(pattern, p, byte) else { return byte == 0x5B ? p + 1 : nil }
            return matched && !(pathname && byte == 0x2F) ? end : nil
        case 0x5C where p + 1 < pattern.count:
            return pattern[p + 1] == byte ? p + 2 : nil
        default:
            return pattern[p] == byte ? p + 1 : nil
        }
    }

    /// A bracket expression at `p`: whether `byte` is in it, and the position after its "]"; nil when it
    /// is not closed (then "[" is an ordinary character).
    private static func bracket(_ pattern: [UInt8], _ start: Int, _ byte: UInt8) -> (Bool, Int)? {
        var p = start + 1
        var negate = false
        if p < pattern.count && (pattern[p] == 0x21 || pattern[p] == 0x5E) {
            negate = true
            p += 1
        }
        var matched = false
        var first = true
        while p < pattern.count {
            if pattern[p] == 0x5D && !first { return (matched != negate, p + 1) }
            first = false
            var low = pattern[p]
            if low == 0x5C && p + 1 < pattern.count {
                p += 1
                low = pattern[p]
            }
            p += 1
            var high = low
            if p + 1 < pattern.count && pattern[p] == 0x2D && pattern[p + 1] != 0x5D {
                high = pattern[p + 1]
                if high == 0x5C && p + 2 < pattern.count {
                    high = pattern[p + 2]
                    p += 1
                }
                p += 2
            }
            if low <= byte && byte <= high { matched = true }
        }
        return nil
    }
}
