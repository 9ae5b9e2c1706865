import ArgumentParser
import FarmCommandLine
import FarmControl

/// `farm item add|rm|move`: edits of one list (SPEC §8). A refused edit changes nothing and exits 2.
struct Item: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "item", abstract: "Add, remove or move a resource of a list.",
        discussion: """
            Edits one list, as the app's grid does: farm item add, farm item rm and farm item move. A list's \
            order is its priority: among its queued resources, a lower index is downloaded first. Every \
            edit is atomic and on disk before the command exits 0; edits from many processes at once take \
            turns, and none is lost. A refused edit (no such list or id, a position out of range, a URL that \
            is not http(s), an id the list has already) changes nothing, says why in one line and exits 2. \
            farm export prints the edited list.

            A resource added or moved ahead of a list's queued resources is claimed before all of them (and \
            before other lists' queued resources too); the rest keep the order they were queued in, and one \
            moved behind others keeps its place in the queue.

            EXAMPLES:
              farm item add "Set 1.json" https://example.org/new.jpg --at 0
                  Add a resource first in line; prints its id.
              farm item rm "Set 1.json" 3f2a0c1e-8d4b-4c55-9a7e-1b2c3d4e5f60
                  Remove that resource and its files.
            """ + Item.exitStatus("Edited."),
        subcommands: [ItemAdd.self, ItemRemove.self, ItemMove.self])

    /// The EXIT STATUS section of an edit's help, after `success`, what 0 means: every edit fails and is
    /// refused alike (`ControlCommand` exits 2 for a refused edit).
    static func exitStatus(_ success: String) -> String {
        ExitStatus.section([0: success, 1: "The spool failed.", 2: "The edit was refused: nothing changed."])
    }
}

/// The arguments that name a resource already in a list: those of `farm item rm` and `farm item move`.
struct ListResource: ParsableArguments {
    @Argument(help: "The list's name (e.g. \"Set 1.json\") or id.")
    var list: String

    @Argument(help: "The resource's id.")
    var id: String
}

struct ItemAdd: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add a resource to LIST (at its end, or at --at) and print its id.",
        discussion: """
            Adds the resource at URL to LIST, at its end or at the 0-based position --at, where the \
            resources from that position on move down by one, and prints its id: a new lowercase UUID \
            unless --id gives one. Put ahead of the list's queued resources, it is downloaded before them. \
            A refused edit (no such list, a URL that is not http(s), an id the list has already, a position \
            out of range) changes nothing.

            EXAMPLES:
              farm item add "Set 1.json" https://example.org/cover.jpg --at 0
                  Add a resource first in line.
              id=$(farm item add Books https://example.org/b.pdf --id book-42)
                  Add one with an id of your own.
            """ + Item.exitStatus("Added; its id is printed."))

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
        commandName: "rm", abstract: "Remove the resource ID from LIST, with its files.",
        discussion: """
            Removes the resource ID from LIST wherever its job is: queued, being downloaded (the download \
            stops), done or failed. Its files and images are deleted, and so is a file delivered to an --out \
            folder; the resources after it move up by one index. A refused edit (no such list or id) \
            changes nothing.

            EXAMPLES:
              farm item rm "Set 1.json" 3f2a0c1e-8d4b-4c55-9a7e-1b2c3d4e5f60
                  Remove that resource and its files.
            """ + Item.exitStatus("Removed."))

    @OptionGroup var options: SpoolOptions

    @OptionGroup var resource: ListResource

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.removeItem(.typed(resource.list), id: resource.id)
    }
}

struct ItemMove: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "move", abstract: "Move the resource ID of LIST to the 0-based position POS.",
        discussion: """
            Moves the resource ID of LIST to the 0-based position POS; the others shift to make room. A \
            queued resource moved ahead of the list's other queued ones is downloaded before them. A refused \
            edit (no such list or id, a position out of range) changes nothing.

            EXAMPLES:
              farm item move "Set 1.json" 3f2a0c1e-8d4b-4c55-9a7e-1b2c3d4e5f60 0
                  Download that resource next.
            """ + Item.exitStatus("Moved."))

    @OptionGroup var options: SpoolOptions

    @OptionGroup var resource: ListResource

    @Argument(help: "The 0-based position to move it to.")
    var position: Int

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.moveItem(.typed(resource.list), id: resource.id, to: position)
    }
}
