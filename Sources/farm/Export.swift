import ArgumentParser
import FarmControl
import FarmManifest

/// `farm export LIST [--shape urls|items|objects]`: the list as JSON, in its current order.
struct Export: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Print LIST as JSON in its current order (the updated JSON).")

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
