import FarmSpool
import FarmSystem
import SystemPackage

/// The current order of a list's resources: the job number (`JobName.index`, the resource's line in the
/// resource table, fixed for its life) of the resource at each 0-based index. A list never edited has
/// no order file and its order is 0..<total; edits (ListEdit.swift) write `lists/<list>.order`.
public struct ListOrder: Sendable, Equatable {
    /// The job number at each index.
    public private(set) var numbers: [Int]

    /// 0..<total: the order of a list as it was added.
    public init(identity total: Int) {
        numbers = Array(0..<total)
    }

    init(numbers: [Int]) {
        self.numbers = numbers
    }

    public var count: Int { numbers.count }

    /// The index of job number `number`; nil when it is not in the list (removed, or never added).
    public func index(of number: Int) -> Int? {
        numbers.firstIndex(of: number)
    }

    /// The index of every job number in the list, in an array indexed by job number (-1 for numbers that
    /// are not in the list), sized to hold `atLeast` numbers: for a reader that maps every job it finds.
    public func indexes(atLeast count: Int = 0) -> [Int] {
        var indexes = [Int](repeating: -1, count: max(count, (numbers.max() ?? -1) + 1))
        for (index, number) in numbers.enumerated() { indexes[number] = index }
        return indexes
    }

    mutating func insert(_ number: Int, at index: Int) { numbers.insert(number, at: index) }
    mutating func remove(at index: Int) -> Int { numbers.remove(at: index) }

    /// 4 bytes little-endian per job number: a 100,000-resource list is 400 KB, read without parsing.
    var bytes: [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(numbers.count * 4)
        for number in numbers {
            let value = UInt32(number)
            bytes += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
        }
        return bytes
    }

    /// The numbers of an order file. Bytes past the last whole number are left out: a page's append (see
    /// `Spool.appendToOrder`) killed mid-write leaves a piece of one, which its next append cuts off.
    init(bytes: [UInt8]) {
        numbers = stride(from: 0, to: bytes.count - bytes.count % 4, by: 4).map { (at: Int) -> Int in
            let low = Int(bytes[at]) | Int(bytes[at + 1]) << 8
            let high = Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
            return low | high
        }
    }
}

extension Lists {
    /// The order of list `id`, whose record says `total` resources: its order file, or 0..<total when it
    /// was never edited (nor paged). An order file that cannot be read counts as absent (fsck reports it).
    public func order(ofList id: String, total: Int) -> ListOrder {
        guard let bytes = try? FileSystem.readFile(spool.lists.orderPath(ofList: id), limit: 1 << 32) else {
            return ListOrder(identity: total)
        }
        return ListOrder(bytes: bytes)
    }

    /// Appends job numbers at the end of the order of list `id`, whose record says `total`, durably: the
    /// commit point of a page of a paged list (see "Pages" in Lists.swift), which costs what the page adds, not what the
    /// list holds. A list without an order file gets one, 0..<total then the numbers, by rename. Called
    /// under the list's edit lock.
    func appendToOrder(_ numbers: [Int], ofList id: String, total: Int) throws(Errno) {
        let path = spool.lists.orderPath(ofList: id)
        guard FileSystem.exists(path) else {
            try writeOrder(ListOrder(numbers: Array(0..<total) + numbers), ofList: id)
            return
        }
        try appendDurably(ListOrder(numbers: numbers).bytes, to: path, wholeOf: 4)
    }

    /// Replaces the order of list `id`, durably: the new order is on disk, under its name, when this
    /// returns. The rename is the commit point of an edit. Called under the list's edit lock, which is
    /// why its temporary can have a fixed name (one left by a killed editor is the next one's to remove).
    func writeOrder(_ order: ListOrder, ofList id: String) throws(Errno) {
        let path = spool.lists.orderPath(ofList: id)
        let temporary = path + Self.stagedSuffix
        do {
            let fd = try FileDescriptor.open(temporary, .writeOnly, options: [.create, .truncate], permissions: 0o600)
            defer { fd.closeQuietly() }
            try fd.write(contentsOf: order.bytes)
            try fd.sync()
            try FileSystem.rename(temporary, path)
        } catch {
            try? FileSystem.unlink(temporary)
            throw error
        }
        try FileSystem.syncDirectory(spool.lists.folder)
    }
}
