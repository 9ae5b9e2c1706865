import FarmControl
import FarmDesired
import FarmStatus

/// What the page's buttons do: the verbs of `Control`, as `farm scale`, `pause`, `resume`, `reset`,
/// `reload` and `add` call them. Each returns the sentence the page shows, or throws the refusal with
/// the HTTP status its code calls for (`ServeError.init(_:)`). Blocking: called through `Blocking.run`.
struct Actions: Sendable {
    let control: Control

    func scale(_ workers: Int) throws(ServeError) -> String {
        try say { () throws(ControlError) in try control.scale(to: workers) }
    }

    func scale(transfers: Int) throws(ServeError) -> String {
        try say { () throws(ControlError) in
            try control.scale(transfers: transfers)
            return "\(transfers) transfers a worker"
        }
    }

    /// `farm limit RATE`: this host's bandwidth cap.
    func limit(_ rate: String) throws(ServeError) -> String {
        try say { () throws(ControlError) in
            try control.setBandwidthLimit(try Control.bandwidth(rate)).description
        }
    }

    func pause(_ paused: Bool) throws(ServeError) -> String {
        try say { () throws(ControlError) in try control.setPaused(paused) }
    }

    func reset() throws(ServeError) -> String {
        try say { () throws(ControlError) in try control.reset() }
    }

    /// `list` is an id, as the page names lists.
    func reload(_ list: String) throws(ServeError) -> String {
        try say { () throws(ControlError) in try control.reload(.id(list)) }
    }

    /// `source` empty: the original app's manifest, as `farm add` with no SOURCE.
    func add(_ source: String) throws(ServeError) -> String {
        try say { () throws(ControlError) in try control.add(source.isEmpty ? nil : source) }
    }

    /// The edits of screen 2; the answer of an add is the new resource's id.
    func addItem(list: String, url: String, id: String?, at position: Int?) throws(ServeError) -> String {
        try say { () throws(ControlError) in try control.addItem(.id(list), url: url, id: id, at: position) }
    }

    func removeItem(list: String, id: String) throws(ServeError) -> String {
        try say { () throws(ControlError) in try control.removeItem(.id(list), id: id) }
    }

    func moveItem(list: String, id: String, to position: Int) throws(ServeError) -> String {
        try say { () throws(ControlError) in try control.moveItem(.id(list), id: id, to: position) }
    }

    /// The published list `id`, checked as every verb checks the list it names.
    func list(_ id: String) throws(ServeError) -> PublishedList {
        do { return try control.find(.id(id)) } catch { throw ServeError(error) }
    }

    private func say(_ verb: () throws(ControlError) -> some CustomStringConvertible) throws(ServeError) -> String {
        do { return try verb().description } catch { throw ServeError(error) }
    }
}
