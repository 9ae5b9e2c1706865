import FarmJSON
import FarmTestSupport
import Foundation
import Testing

/// bin/package's .deb, as a Linux user meets it: what it holds, what it depends on, lintian's verdict, and
/// the farm it installs (unpacked into a fresh root) run: its version, the demo, man pages, the three
/// shells' completions, and farm@.service's command lines by hand (no systemd runs here).
@Suite(.serialized) struct PackageTests {
    private func package() throws -> BuiltPackage { try BuiltPackage.shared.get() }

    @Test func holdsTheBinaryManPagesCompletionsDocumentationAndTheUnit() throws {
        let package = try package()
        let listing = try tool("dpkg-deb", ["-c", package.deb])
        let paths = Set(listing.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) })
        let unit = paths.first { $0.hasSuffix("/systemd/system/farm@.service") }
        #expect(unit == "./lib/systemd/system/farm@.service" || unit == "./usr/lib/systemd/system/farm@.service")
        for path in ["./usr/bin/farm", "./usr/libexec/farm/farm-serve", "./usr/share/man/man1/farm.1.gz", "./usr/share/man/man1/farm-start.1.gz",
                     "./usr/share/man/man1/farm-scale.1.gz", "./usr/share/bash-completion/completions/farm",
                     "./usr/share/zsh/vendor-completions/_farm", "./usr/share/fish/vendor_completions.d/farm.fish",
                     "./usr/share/doc/farm/README.md.gz", "./usr/share/doc/farm/copyright",
                     "./usr/share/doc/farm/changelog.gz"] {
            #expect(paths.contains(path), "\(path) is not in the package:\n\(listing)")
        }
        // A man page for every subcommand the help shows.
        let help = try tool(package.farm, ["--help"])
        // Each subcommand's line is indented by two spaces; its description's wrapped lines, by more.
        let subcommands = help.components(separatedBy: "SUBCOMMANDS:").last?.split(separator: "\n")
            .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }.filter { $0.allSatisfy(\.isLowercase) } ?? []
        #expect(subcommands.count > 20, "\(help)")
        for name in subcommands {
            #expect(paths.contains("./usr/share/man/man1/farm-\(name).1.gz"), "no man page for farm \(name)")
        }
        #expect(help.contains("--version"))
        let version = try tool(package.farm, ["--version"])
        #expect(package.deb.hasSuffix("/farm_\(version.split(separator: " ")[0])_amd64.deb"), "\(version)")
    }

    /// farm serve, as installed: /usr/bin/farm finds farm-serve, the server it execs, in /usr/libexec/farm (it
    /// is not beside it, nor on PATH), which serves the page and aria2's RPC; farm metrics needs no server.
    @Test func installedFarmServesThroughItsServerInLibexec() throws {
        let package = try package()
        #expect(!FileManager.default.fileExists(atPath: package.root + "/usr/bin/farm-serve"))
        let dir = TemporaryDirectory("farm-package-serve")
        let spool = dir.appending("spool")
        let serve = try ServeProcess(spool: spool, farm: package.farm)
        let page = try serve.get("/")
        #expect(page.status == 200 && page.text.contains("farm-token"), "\(page.status) \(page.text.prefix(300))")
        let rpc = try HTTP.send(serve.base + "/jsonrpc", method: "POST", headers: ["Content-Type": "application/json"],
                                body: #"{"jsonrpc":"2.0","id":"v","method":"aria2.getVersion"}"#)
        #expect(rpc.status == 200 && rpc.text.contains("1.37.0"), "\(rpc.status) \(rpc.text)")
        #expect(serve.stop() == 0)
        #expect(try tool(package.farm, ["metrics", "--spool", spool]).contains("farm_workers_desired"))
    }

    /// `farm --version` names the git revision of the tree it was built from: a commit of this repository
    /// (HEAD when the package was built, which a commit made since has moved).
    @Test func versionNamesTheRevisionItWasBuiltFrom() throws {
        let package = try package()
        let version = try tool(package.farm, ["--version"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let revision = (version.split(separator: " ").last.map { String($0.dropLast()) } ?? "")
            .replacingOccurrences(of: "-dirty", with: "")
        #expect(version.hasPrefix("0.1.0 (revision "), "\(version)")
        #expect(revision.count == 12, "\(version)")
        #expect((try? tool("git", ["-C", BuiltPackage.tree, "cat-file", "-e", revision + "^{commit}"])) != nil,
                "\(version) names no commit of this repository")
    }

    /// Depends names exactly the packages of the libraries farm links (ldd) and of those it dlopen()s, as
    /// seen while `farm demo` runs (LD_DEBUG): every one it loads itself, and no other.
    @Test func dependsOnTheLibrariesFarmLoadsAndRunsTheDemoWithoutATerminal() throws {
        let package = try package()
        let depends = try tool("dpkg-deb", ["-f", package.deb, "Depends"])
        let declared = Set(depends.split(separator: ",").map {
            String($0.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")[0])
        })

        let ldd = try tool("ldd", [package.farm])
        #expect(!ldd.contains("not found"), "\(ldd)")
        var linked: [String: String] = [:]  // soname: path
        for line in ldd.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            if words.count >= 3, words[1] == "=>" { linked[words[0].trimmingCharacters(in: .whitespaces)] = words[2] }
            else if let path = words.first?.trimmingCharacters(in: .whitespaces), path.hasPrefix("/") {
                linked[(path as NSString).lastPathComponent] = path
            }
        }

        // The demo, run from the installed binary with the dynamic linker reporting every library loaded:
        // its own process's report on its standard error, its copies' (workers) in the spool's log.
        let dir = TemporaryDirectory("farm-package-demo")
        let spool = dir.appending("spool")
        let demo = try run(package.farm, ["demo", "--spool", spool, "--workers", "2",
                                          "--port", String(try freePort())],
                           environment: ["LD_DEBUG": "files"], timeout: 600)
        #expect(demo.status == 0, "\(demo.error.suffix(2000))")
        #expect(demo.output.contains("Finished"), "\(demo.output.suffix(2000))")
        let log = (try? String(contentsOfFile: spool + "/log/farm.log", encoding: .utf8)) ?? ""
        let loadedByFarm = Set((demo.error + log).split(separator: "\n").compactMap { line -> String? in
            // The program is named as it was started: the path, or "farm" for what farm starts itself (its
            // supervisor, and farm-serve, which draws the demo's samples with cairo).
            let names = [package.farm, "farm"]
            guard names.contains(where: { line.contains("dynamically loaded by \($0) ") || line.contains("needed by \($0) ") }),
                  let file = line.range(of: "file=") else { return nil }
            return String(line[file.upperBound...].prefix { $0 != " " })
        })
        #expect(loadedByFarm.contains("libcurl.so.4") && loadedByFarm.contains("libpoppler-glib.so.8"),
                "\(loadedByFarm.sorted())")

        var expected = Set<String>()
        for soname in loadedByFarm.union(linked.keys) where soname != "linux-vdso.so.1" {
            let path = try linked[soname] ?? libraryPath(soname)
            expected.insert(try owner(of: path))
        }
        #expect(declared == expected, "Depends: \(depends)")
    }

    /// No error, and no warning of groff's about a man page (lintian's groff-message: it formats each page
    /// as man does, with warnings on).
    @Test func passesLintianWithoutErrorsOrGroffWarnings() throws {
        let package = try package()
        let result = try run("/usr/bin/env", ["lintian", "--tag-display-limit", "0", package.deb], timeout: 600)
        let errors = result.output.split(separator: "\n").filter { $0.hasPrefix("E:") }
        #expect(errors.isEmpty, "\(result.output)\(result.error)")
        #expect(!result.output.contains("groff-message"), "\(result.output)")
        #expect(result.status == 0, "lintian: \(result.error)")
    }

    @Test func manFindsThePagesOfFarmAndItsSubcommands() throws {
        let package = try package()
        let manPath = package.root + "/usr/share/man"
        for page in ["farm", "farm-start", "farm-scale"] {
            let found = try tool("man", ["-w", page], environment: ["MANPATH": manPath])
            #expect(found.hasPrefix(manPath + "/man1/\(page).1"), "\(page): \(found)")
        }
    }

    /// `man farm` and `man farm-scale` as a user of the installed package reads them (plain text, 80
    /// columns): pages to work from, as aria2c(1) or git-commit(1) are, with their sections filled in, and no
    /// path of the source tree, which an installed system does not have. farm(1)'s FILES names every folder
    /// of a spool the installed farm makes; farm-scale(1)'s examples are those of `farm scale --help`, the
    /// one source of both.
    @Test func manPagesAreOnesAUserCanWorkFrom() throws {
        let package = try package()
        let farm = try manText(package, "farm")
        let sections = Self.sections(of: farm)
        for heading in ["NAME", "SYNOPSIS", "DESCRIPTION", "EVERYDAY COMMANDS", "ENVIRONMENT", "FILES", "EXIT STATUS",
                        "SIGNALS", "SEE ALSO"] {
            #expect(sections[heading]?.isEmpty == false, "farm(1) has no \(heading):\n\(farm)")
        }
        let everyday = sections["EVERYDAY COMMANDS"] ?? []
        #expect(everyday.filter { $0.hasPrefix("farm ") }.count >= 8, "\(everyday)")
        let environment = (sections["ENVIRONMENT"] ?? []).joined(separator: " ")
        for variable in ["FARM_SPOOL", "http_proxy", "https_proxy", "all_proxy", "no_proxy", "CURL_CA_BUNDLE",
                         "SSL_CERT_FILE"] {
            #expect(environment.contains(variable), "ENVIRONMENT does not name \(variable):\n\(environment)")
        }
        // Every folder of a spool, as the installed farm makes one, named by a row of the table (a row's names
        // are what comes before its first two spaces: "hosts/, holds/  per-host slots...").
        let dir = TemporaryDirectory("farm-package-man")
        try tool(package.farm, ["recover", "--spool", dir.appending("spool")])
        let folders = try FileManager.default.contentsOfDirectory(atPath: dir.appending("spool")).filter { !$0.hasPrefix(".") }
        #expect(folders.count > 10, "\(folders)")
        let files = sections["FILES"] ?? []
        let named = files.flatMap { ($0.components(separatedBy: "  ").first ?? "").components(separatedBy: ", ") }
        for folder in folders {
            #expect(named.contains { $0.hasPrefix(folder + "/") }, "FILES has no row for \(folder)/:\n\(files.joined(separator: "\n"))")
        }
        // A row for each status farm exits with, starting with it.
        let exits = (sections["EXIT STATUS"] ?? []).compactMap { $0.split(whereSeparator: \.isWhitespace).first.map(String.init) }
        for status in ["0", "1", "2", "3"] {
            #expect(exits.contains(status), "EXIT STATUS has no \(status):\n\(sections["EXIT STATUS"] ?? [])")
        }
        let signals = (sections["SIGNALS"] ?? []).joined(separator: " ")
        for word in ["SIGTERM", "SIGKILL", "supervisor", "worker", "watcher", "follower"] {
            #expect(signals.contains(word), "SIGNALS does not say \(word):\n\(signals)")
        }

        let scale = try manText(package, "farm-scale")
        let scaleSections = Self.sections(of: scale)
        for heading in ["NAME", "SYNOPSIS", "DESCRIPTION", "EXAMPLES", "EXIT STATUS"] {
            #expect(scaleSections[heading]?.isEmpty == false, "farm-scale(1) has no \(heading):\n\(scale)")
        }
        #expect((scaleSections["DESCRIPTION"] ?? []).joined(separator: " ").contains("--transfers"), "\(scale)")
        let examples = (scaleSections["EXAMPLES"] ?? []).filter { $0.hasPrefix("farm scale ") }
        #expect(!examples.isEmpty, "\(scale)")
        let help = try tool(package.farm, ["scale", "--help"])
        for example in examples { #expect(help.contains(example), "--help has no \(example):\n\(help)") }

        for (page, text) in [("farm", farm), ("farm-scale", scale)] {
            for path in ["Sources/", "README"] {
                #expect(!text.contains(path), "\(page)(1) points at \(path), which an installed system has not:\n\(text)")
            }
        }
    }

    /// `farm sc` and Tab: `scale`, in bash, zsh and fish.
    @Test(arguments: ["bash", "zsh", "fish"])
    func completesASubcommand(shell: String) throws {
        guard installed(shell) else {
            // bin/setup installs zsh and fish; a machine set up by other means may lack them.
            withKnownIssue("\(shell) is not installed: its completion is not checked") { throw CommandFailed(shell) }
            return
        }
        let package = try package()
        let dir = TemporaryDirectory("farm-package-\(shell)")
        let (script, arguments, completions): (String, [String], String)
        switch shell {
        case "bash": (script, arguments, completions) = (CompletionProbes.bash, [], "/usr/share/bash-completion/completions")
        case "zsh": (script, arguments, completions) = (CompletionProbes.zsh, ["-f"], "/usr/share/zsh/vendor-completions")
        default: (script, arguments, completions) = (CompletionProbes.fish, ["--no-config"], "/usr/share/fish/vendor_completions.d")
        }
        try Data(script.utf8).write(to: URL(fileURLWithPath: dir.appending("probe")))
        let path = (package.root + "/usr/bin:") + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let result = try run("/usr/bin/env", [shell] + arguments + [dir.appending("probe"), package.root + completions, "farm sc"],
                             environment: ["PATH": path], timeout: 60)
        let candidates = result.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(candidates == ["scale"], "\(shell): \(result.output) \(result.error)")
    }

    /// systemd-analyze accepts the unit as installed: in a mount namespace of its own /usr/bin shows the
    /// package's farm (overlaid), and its man pages are on MANPATH (Documentation= is checked).
    @Test func systemdAnalyzeVerifiesTheUnit() throws {
        let package = try package()
        let unit = try unitPath(package)
        let script = "mount -t overlay overlay -o lowerdir=\"$1/usr/bin\":/usr/bin /usr/bin && systemd-analyze verify \"$2\""
        let result = try run("/usr/bin/env", ["unshare", "-m", "sh", "-c", script, "verify", package.root, unit],
                             environment: ["MANPATH": package.root + "/usr/share/man"], timeout: 120)
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.error.isEmpty && result.output.isEmpty, "\(result.output)\(result.error)")
    }

    /// ExecStart, run by hand on a temporary spool, is the supervisor itself (no detaching): the pid it
    /// started registers as the supervisor, with its workers and watcher. The unit stops it as systemd
    /// does with KillMode=mixed and no ExecStop: SIGTERM to that process alone, which is `farm stop`; it
    /// exits 0 with every process of the farm gone, and nothing starts again.
    @Test func theUnitsCommandsRunTheSupervisorInTheForegroundAndStopIt() throws {
        let package = try package()
        let unit = try String(contentsOfFile: try unitPath(package), encoding: .utf8)
        let dir = TemporaryDirectory("farm-package-unit")
        let spool = dir.appending("books")
        func command(_ key: String) throws -> [String] {
            guard let line = unit.split(separator: "\n").first(where: { $0.hasPrefix(key + "=") }) else {
                throw CommandFailed("no \(key) in the unit")
            }
            return line.dropFirst(key.count + 1).split(separator: " ").map {
                $0.replacingOccurrences(of: "/var/lib/farm/%I", with: spool)
                    .replacingOccurrences(of: "/usr/bin/farm", with: package.farm)
            }
        }
        let start = try command("ExecStart")
        #expect(!start.joined().contains("%"))
        func setting(_ key: String) -> String? {
            unit.split(separator: "\n").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
        }
        // SIGTERM to the supervisor alone; it stops the rest. A `farm stop` as ExecStop would do the same
        // stop twice, and control-group would signal the workers before their supervisor marks the stop.
        #expect(setting("KillMode") == "mixed" && setting("ExecStop") == nil, "\(unit)")

        let supervisor = try ChildProcess(start[0], Array(start.dropFirst()))
        var processes: [ProcessRow] = []
        // Whatever happens, every process of this farm ends: the workers and the watcher are the supervisor's.
        defer {
            _ = try? run(package.farm, ["stop", "--spool", spool], timeout: 60)
            for row in processes where kill(row.pid, 0) == 0 { kill(row.pid, SIGKILL) }
        }
        var roles: [String] { processes.map(\.role) }
        let running = poll(timeout: 60, every: 0.1) {
            guard let ps = try? run(package.farm, ["ps", "--json", "--spool", spool]), ps.status == 0,
                  let rows = JSON.decode([ProcessRow].self, from: Array(ps.output.utf8)) else { return false }
            processes = rows
            let supervisors = rows.filter { $0.role == "supervisor" }
            return supervisors.count == 1 && supervisors[0].pid == supervisor.pid
                && roles.contains("watcher") && roles.contains("worker")
        }
        #expect(running, "not supervisor pid \(supervisor.pid) with its farm: \(roles); \(supervisor.standardError)")
        #expect(supervisor.process.isRunning, "ExecStart's process ended: \(supervisor.standardError)")

        supervisor.kill(SIGTERM)
        #expect(supervisor.wait(timeout: 60) == 0, "\(supervisor.standardError)")
        #expect(supervisor.standardOutput.contains("farm stopped on \(spool)"), "\(supervisor.standardOutput)")
        #expect(poll(timeout: 30) { processes.allSatisfy { isGone($0.pid) } }, "\(processes)")
        // What systemd's SIGKILL to the rest of the cgroup would have ended: nothing, and nothing comes back.
        let restarted = poll(timeout: 10, every: 0.2) {
            let after = try? run(package.farm, ["ps", "--json", "--spool", spool])
            return after?.output.trimmingCharacters(in: .whitespacesAndNewlines) != "[]"
        }
        #expect(!restarted, "the farm started again after SIGTERM to its supervisor")
    }

    /// `man page` from the package's pages, as plain text 80 columns wide.
    private func manText(_ package: BuiltPackage, _ page: String) throws -> String {
        try tool("man", [page], environment: ["MANPATH": package.root + "/usr/share/man", "MANWIDTH": "80",
                                              "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "MANPAGER": "cat"])
    }

    /// The sections of a page as man prints it: each heading (capitals at the margin) with its lines,
    /// trimmed, blank ones left out.
    private static func sections(of text: String) -> [String: [String]] {
        var sections: [String: [String]] = [:]
        var heading: String?
        for line in text.split(separator: "\n").map(String.init) {
            if !line.hasPrefix(" "), line.allSatisfy({ $0.isUppercase || $0 == " " }), !line.isEmpty {
                heading = line
                sections[line] = []
            } else if let heading, !line.trimmingCharacters(in: .whitespaces).isEmpty {
                sections[heading, default: []].append(line.trimmingCharacters(in: .whitespaces))
            }
        }
        return sections
    }

    private func unitPath(_ package: BuiltPackage) throws -> String {
        for directory in ["/lib/systemd/system", "/usr/lib/systemd/system"] {
            let path = package.root + directory + "/farm@.service"
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        throw CommandFailed("the package has no farm@.service")
    }

    /// Where the dynamic linker finds `soname` on this machine.
    private func libraryPath(_ soname: String) throws -> String {
        let cache = try tool("ldconfig", ["-p"])
        for line in cache.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix(soname + " ")
            && line.contains("x86-64") {
            if let arrow = line.range(of: "=> ") { return String(line[arrow.upperBound...]) }
        }
        throw CommandFailed("\(soname) is not in the linker's cache")
    }

    /// The package that ships the library at `path` (dpkg records one of its names on a merged /usr).
    private func owner(of path: String) throws -> String {
        let real = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)).map {
            $0.hasPrefix("/") ? $0 : ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent($0)
        }
        for candidate in [path, real, "/usr" + path, path.hasPrefix("/usr/") ? String(path.dropFirst(4)) : nil]
            .compactMap({ $0 }) {
            if let found = try? tool("dpkg", ["-S", candidate]),
               let line = found.split(separator: "\n").first(where: { !$0.hasPrefix("diversion") }) {
                return String(line.split(separator: ":")[0])
            }
        }
        throw CommandFailed("no package ships \(path)")
    }
}

/// One row of `farm ps --json`, as far as these tests read it.
private struct ProcessRow: JSONReadable {
    let role: String
    let pid: Int32

    init(json: JSONValue) throws(JSONMismatch) {
        role = try json.decode("role")
        pid = Int32(try json.decode("pid") as Int)
    }
}
