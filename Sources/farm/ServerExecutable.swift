import FarmSystem
import Glibc

/// farm-serve, the executable of farm's HTTP servers (`farm serve`, `farm demo`'s sample origin), kept apart
/// so that the HTTP, TLS and WebSocket stack they link is not mapped by every worker. It is found beside this
/// executable (a build directory, or wherever both were copied), else in ../libexec/farm (the Debian package
/// puts it in /usr/libexec/farm, as a program users do not run themselves).
enum ServerExecutable {
    static let name = "farm-serve"

    /// Where farm-serve is; refused in one line when it is in neither place.
    static func path() throws -> String {
        let me = Processes.executable
        let folder = me.lastIndex(of: "/").map { String(me[..<$0]) } ?? "."
        let places = [folder + "/" + name, folder + "/../libexec/farm/" + name]
        guard let found = places.first(where: { access($0, X_OK) == 0 }) else {
            throw FarmError("cannot find \(name), which farm serve and farm demo run, in \(folder) or "
                + "\(folder)/../libexec/farm: install farm again")
        }
        return found
    }

    /// This process's arguments after the first `word`: a subcommand's own, as the user typed them.
    static func argumentsAfter(_ word: String) -> [String] {
        Array(CommandLine.arguments.dropFirst().drop { $0 != word }.dropFirst())
    }

    /// Becomes `farm-serve arguments`, shown in ps as `farm arguments` (as it was typed).
    static func exec(_ arguments: [String]) throws -> Never {
        let path = try path()
        let argv = (["farm"] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        throw FarmError("cannot run \(path): \(String(cString: strerror(errno)))")
    }
}
