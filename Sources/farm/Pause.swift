import ArgumentParser
import FarmControl

/// `farm pause`: every transfer stops where it is, keeping its bytes and lease; nothing new is claimed.
struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Pause every transfer (bytes and leases are kept).")

    @OptionGroup var options: SpoolOptions

    func run() throws {
        print(try Control(spool: options.open(create: false)).setPaused(true))
    }
}

/// `farm resume`: transfers continue from the byte they reached.
struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Resume every transfer from the byte it reached.")

    @OptionGroup var options: SpoolOptions

    func run() throws {
        print(try Control(spool: options.open(create: false)).setPaused(false))
    }
}
