import ArgumentParser
import FarmControl

/// Which failed resources `farm failed` and `farm retry` are about: one list's or all, and those of one
/// reason or all.
struct FailedFilter: ParsableArguments {
    @Argument(help: "Only this list (its name, e.g. \"Set 1.json\", or id).")
    var list: String?

    @Option(help: "Only the resources whose reason contains TEXT (e.g. 'HTTP 503').")
    var reason: String?

    var listRef: ListRef? { list.map(ListRef.typed) }
}
