import FarmJSON
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
        guard let resources = spool.resources(ofList: list.id) else {
            throw ControlError(.noResourceTable, list.record.name)
        }
        let form = form ?? list.record.shape.flatMap(ListForm.init(rawValue:)) ?? Self.form(of: resources, list: list.id)
        let document = form.document(resources.lazy.map { (url: $0.url, id: $0.id) })
        return Exported(list: list.record.name, form: form, json: JSON.encode(document, .pretty))
    }

    /// The shape of a list that did not record its own: URL strings when every id is the job name farm
    /// made up for it, else objects, which keep the ids.
    private static func form(of resources: [JobRecord], list: String) -> ListForm {
        let madeUp = resources.indices.allSatisfy { resources[$0].id == JobName(list: list, index: $0).raw }
        return madeUp ? .urls : .objects
    }
}
