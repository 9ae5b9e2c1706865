import FarmJSON
import FarmLists
import FarmManifest
import FarmSpool

extension Control {
    /// What `export` prints: a list as JSON, in its current order.
    public struct Exported: CustomStringConvertible, Sendable {
        /// The list's name.
        public let list: String
        /// The shape it is written in.
        public let form: ListForm
        /// The document, pretty-printed, with its final newline.
        public let json: [UInt8]

        public var description: String { String(decoding: json.dropLast(), as: UTF8.self) }
    }

    /// `farm export LIST [--shape]`: the list as JSON in the shape it was added in (or `form`), in its
    /// current order: the "updated JSON", which `farm add` reads back as the same resources.
    public func export(_ ref: ListRef, as form: ListForm? = nil) throws(ControlError) -> Exported {
        let list = try find(ref)
        guard let table = spool.lists.resources(ofList: list.id) else {
            throw ControlError(.noResourceTable, list.record.name)
        }
        let order = Lists(spool).order(ofList: list.id, total: list.record.total)
        let resources = order.numbers.filter { $0 < table.count }.map { (number: $0, record: table[$0]) }
        let form = form ?? list.record.shape.flatMap(ListForm.init(rawValue:)) ?? Self.form(of: resources, list: list.id)
        let document = form.document(mirrored: resources.lazy.map {
            (url: $0.record.url, id: $0.record.id, sha256: $0.record.sha256, mirrors: $0.record.mirrors,
             out: $0.record.out)
        })
        return Exported(list: list.record.name, form: form, json: JSON.encode(document, .pretty))
    }

    /// The shape of a list that did not record its own: URL strings when every id is the job name farm
    /// made up for it and no resource names a checksum, mirrors or a delivered name, else objects, which keep them.
    private static func form(of resources: [(number: Int, record: JobRecord)], list: String) -> ListForm {
        let madeUp = resources.allSatisfy { $0.record.id == JobName(list: list, index: $0.number).raw && $0.record.sha256 == nil
            && $0.record.mirrors.isEmpty && $0.record.out == nil }
        return madeUp ? .urls : .objects
    }
}
