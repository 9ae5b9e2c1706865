import ArgumentParser
import FarmCommandLine
import FarmControl
import FarmManifest

/// `farm export LIST [--shape urls|items|objects]`: the list as JSON, in its current order.
struct Export: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Print LIST as JSON in its current order (the updated JSON).",
        discussion: """
            Prints LIST as JSON, its resources in their current order (after farm item edits and farm \
            sync), in the shape the list was added in or the one --shape asks for. farm add reads it back as \
            the same resources. Header and cookie values are never in it. export only reads the spool.

            EXAMPLES:
              farm export "Set 1.json" > "Set 1.json"
                  The updated list, in its own shape.
              farm export Books --shape urls
                  Just the URLs, as a JSON array.
            """ + ExitStatus.section([
                0: "Printed.",
                1: """
                    No such list, a list that lost the table of its resources, or no
                    spool there.
                    """,
            ]))

    @OptionGroup var options: SpoolOptions

    @Argument(help: "The list's name (e.g. \"Set 1.json\") or id.")
    var list: String

    @Option(help: ArgumentHelp(
        "The JSON shape: urls (an array of URL strings), items ({\"items\": [{\"uuid\", \"imageUrlString\"}]}) "
            + "or objects ([{\"id\", \"url\"}]); default: the shape the list was added in."))
    var shape: ListForm?

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.export(.typed(list), as: shape)
    }
}

extension ListForm: ExpressibleByArgument {}
