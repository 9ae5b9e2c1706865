/// A set of job indexes of one list, with its count kept as it changes.
///
/// A set rather than a counter makes every update idempotent: the watcher replays events that a
/// fresh scan may already have seen (a watch is added before its directory is read), and adding a
/// job twice or removing one that is not there changes nothing. A bitmap for the usual indexes, so
/// a million jobs cost 128 KB; a plain set for absurd ones, so a foreign name cannot blow it up.
package struct JobSet: Equatable, Sendable {
    package init() {}

    /// Indexes below this live in the bitmap (8 MB at most).
    private static let bitmapLimit = 1 << 26

    private var words: [UInt64] = []
    private var outliers: Set<Int> = []
    package private(set) var count = 0

    /// Adds `index`; true when it was not there.
    @discardableResult
    package mutating func insert(_ index: Int) -> Bool {
        guard index >= 0 else { return false }
        if index >= Self.bitmapLimit {
            guard outliers.insert(index).inserted else { return false }
            count += 1
            return true
        }
        let word = index >> 6, bit = UInt64(1) << UInt64(index & 63)
        if word >= words.count { words.append(contentsOf: repeatElement(0, count: word - words.count + 1)) }
        guard words[word] & bit == 0 else { return false }
        words[word] |= bit
        count += 1
        return true
    }

    /// Removes `index`; true when it was there.
    @discardableResult
    package mutating func remove(_ index: Int) -> Bool {
        guard index >= 0 else { return false }
        if index >= Self.bitmapLimit {
            guard outliers.remove(index) != nil else { return false }
            count -= 1
            return true
        }
        let word = index >> 6, bit = UInt64(1) << UInt64(index & 63)
        guard word < words.count, words[word] & bit != 0 else { return false }
        words[word] &= ~bit
        count -= 1
        return true
    }

    /// The indexes in `self` and not in `other` (to the first closure) and the other way round (to the
    /// second), a 64-index word at a time: O(size) with no work for words that agree.
    package func compare(with other: JobSet, onlyHere: (Int) -> Void, onlyThere: (Int) -> Void) {
        for word in 0..<max(words.count, other.words.count) {
            let here = word < words.count ? words[word] : 0, there = word < other.words.count ? other.words[word] : 0
            var differ = here ^ there
            while differ != 0 {
                let bit = differ.trailingZeroBitCount
                differ &= differ - 1
                let index = word << 6 | bit
                if here & (UInt64(1) << UInt64(bit)) != 0 { onlyHere(index) } else { onlyThere(index) }
            }
        }
        for index in outliers where !other.outliers.contains(index) { onlyHere(index) }
        for index in other.outliers where !outliers.contains(index) { onlyThere(index) }
    }

    /// Calls `body` with every index in the set.
    package func forEach(_ body: (Int) -> Void) { compare(with: JobSet(), onlyHere: body, onlyThere: { _ in }) }

    /// Removes every index of `other`.
    package mutating func subtract(_ other: JobSet) {
        for word in 0..<min(words.count, other.words.count) where words[word] & other.words[word] != 0 {
            count -= (words[word] & other.words[word]).nonzeroBitCount
            words[word] &= ~other.words[word]
        }
        for index in other.outliers where outliers.remove(index) != nil { count -= 1 }
    }

    package func contains(_ index: Int) -> Bool {
        guard index >= 0 else { return false }
        if index >= Self.bitmapLimit { return outliers.contains(index) }
        let word = index >> 6
        return word < words.count && words[word] & (UInt64(1) << UInt64(index & 63)) != 0
    }
}
