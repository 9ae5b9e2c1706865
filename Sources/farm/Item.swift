import ArgumentParser
import FarmControl

/// `farm item add|rm|move`: edits of one list (SPEC §8). A refused edit changes nothing and exits 2.
struct Item: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "item", abstract: "Add, remove or move a resource of a list.",
        subcommands: [ItemAdd.self, ItemRemove.self, ItemMove.self])
}

struct ItemAdd: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add a resource to LIST (at its end, or at --at) and print its id.")

    @OptionGroup var options: SpoolOptions

    @Argument(help: "The list's name (e.g. \"Set 1.json\") or id.")
    var list: String

    @Argument(help: "The resource's http(s) URL.")
    var url: String

    @Option(help: "The resource's id (default: a new lowercase UUID).")
    var id: String?

    @Option(name: .customLong("at"), help: "The 0-based position to insert it at (default: the end).")
    var position: Int?

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.addItem(.typed(list), url: url, id: id, at: position)
    }
}

struct ItemRemove: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm", abstract: "Remove the resource ID from LIST, with its files.")

    @OptionGroup var options: SpoolOptions

    @Argument(help: "The list's name (e.g. \"Set 1.json\") or id.")
    var list: String

    @Argument(help: "The resource's id.")
    var id: String

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.removeItem(.typed(list), id: id)
    }
}

struct ItemMove: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "move", abstract: "Move the resource ID of LIST to the 0-based position POS.")

    @OptionGroup var options: SpoolOptions

    @Argument(help: "The list's name (e.g. \"Set 1.json\") or id.")
    var list: String

    @Argument(help: "The resource's id.")
    var id: String

    @Argument(help: "The 0-based position to move it to.")
    var position: Int

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.moveItem(.typed(list), id: id, to: position)
    }
}
