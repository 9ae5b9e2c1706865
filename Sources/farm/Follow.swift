import ArgumentParser
import FarmCommandLine
import FarmDesired
import FarmFollower
import FarmSpool

/// `farm follow`: the follower process. The supervisor starts it while some paged list has pages to
/// follow (SPEC §7); it fetches them, adds their items to their lists, and exits once none is left.
struct Follow: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "Follow the pages of paged lists (the supervisor starts it).",
        discussion: """
            Runs the follower in this process: it fetches the pages of the paged lists (farm add --items) \
            one at a time, taking the lists in turn, and adds each page's items to its list while the \
            workers download; it exits once no list has pages left to fetch. A page that fails is retried \
            as a download is; one that is not JSON, or lacks its items, stops its list with an error on \
            the list, keeping what was added. One follower runs per spool, and the supervisor starts it \
            while a list has pages to fetch: there is no need to start one by hand.

            EXAMPLES:
              farm ps | grep follower
                  The follower the supervisor runs.
            """ + ExitStatus.section([0: "No list is left to follow, or it was stopped.", 1: ExitStatus.spoolUnusable]),
        shouldDisplay: false)

    @OptionGroup var options: SpoolOptions

    @Flag(help: .hidden) var supervised = false

    func run() throws {
        let spool = try options.open(create: false)
        try Follower.run(spool, FollowerOptions(spool.control.desired()), supervised: supervised)
    }
}
