import CFarmShims
import Glibc
import SystemPackage

/// Processes: signals, reaping, starting children (posix_spawn, or a copy of this process), titles.
/// Stateless; any thread (a copy only from a process with one thread: see `copy`).
public enum Processes {
    /// The signals farm sends.
    public enum Signal: Sendable {
        /// SIGTERM: a graceful stop (hand the job back, then exit).
        case terminate
        /// SIGKILL.
        case kill

        var number: Int32 { self == .terminate ? SIGTERM : SIGKILL }
    }

    /// This process's id. Not cached (a copy made without exec must not inherit its parent's).
    public static func current() -> Int32 { getpid() }

    /// Sends `signal` to `pid`; false when there is no such process (or it is not ours to signal).
    @discardableResult
    public static func send(_ signal: Signal, to pid: Int32) -> Bool {
        Glibc.kill(pid, signal.number) == 0
    }

    /// Whether a process `pid` exists (a zombie included).
    public static func exists(_ pid: Int32) -> Bool {
        Glibc.kill(pid, 0) == 0
    }

    /// Whether process `pid` has ended: it is gone, or a zombie its parent has not collected yet.
    public static func hasEnded(_ pid: Int32) -> Bool {
        guard Glibc.kill(pid, 0) == 0 else { return errno == ESRCH }
        return statFields(of: pid)?.first == [UInt8(ascii: "Z")]
    }

    /// Process `pid`'s group and when it started (clock ticks after boot), from /proc/<pid>/stat; nil when
    /// there is no such process. Its start tells it from a later process given the same pid.
    public static func groupAndStart(of pid: Int32) -> (group: Int32, start: UInt64)? {
        // state (field 3), ppid, pgrp (5), … starttime (22).
        guard pid > 0, let fields = statFields(of: pid), fields.count > 19,
              let group = Int32(String(decoding: fields[2], as: UTF8.self)),
              let start = UInt64(String(decoding: fields[19], as: UTF8.self)) else { return nil }
        return (group, start)
    }

    /// The fields of /proc/<pid>/stat after the command, from its state (field 3) on: the line is
    /// "<pid> (<comm>) <state> …", and the command may hold spaces or parentheses. Nil: no such process.
    private static func statFields(of pid: Int32) -> [ArraySlice<UInt8>]? {
        guard let stat = try? FileSystem.readFile("/proc/\(pid)/stat", limit: 4096),
              let close = stat.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        return stat[(close + 1)...].split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") })
    }

    /// Whether a process `pid` may be running: it exists (a zombie included), or it exists but is not
    /// ours to signal. For judging whether a file's writer is gone, where doubt means alive.
    public static func mayExist(_ pid: Int32) -> Bool {
        pid > 0 && (Glibc.kill(pid, 0) == 0 || errno == EPERM)
    }

    /// Collects the exit of every child that ended, without waiting; returns their pids.
    public static func reapChildren() -> [Int32] {
        var ended: [Int32] = []
        while true {
            var status: Int32 = 0
            let pid = waitpid(-1, &status, WNOHANG)
            guard pid > 0 else { return ended }
            ended.append(pid)
        }
    }

    /// This process's own executable, so a child always runs the same build as its parent.
    public static let executable: String = {
        (try? FileSystem.readLink("/proc/self/exe")) ?? CommandLine.arguments[0]
    }()

    /// Starts `executable` (looked up in PATH with `searchingPath`) with `arguments` (argv[0] included)
    /// and returns its pid: standard input from /dev/null, standard output and error appended to
    /// `output`, `handingDown` (unless nil) at descriptor `handedDownAt` (dup2 clears its close-on-exec),
    /// every other descriptor closed, stop signals at their defaults and none blocked; with `newSession`
    /// a session of its own, so it outlives this process and any terminal; with `ownGroup` a process group of
    /// its own (whose id is its pid), so that `sendToGroup` reaches whatever it starts too. `environment`
    /// (`NAME=value` strings): the child's whole environment; nil: this process's. With `keepingErrors`
    /// standard error is this process's, and only standard output goes to `output`.
    public static func spawn(_ executable: String, _ arguments: [String], output: String, newSession: Bool = false,
                             handingDown: FileDescriptor? = nil, at handedDownAt: Int32 = 3,
                             searchingPath: Bool = false, ownGroup: Bool = false,
                             environment: [String]? = nil, keepingErrors: Bool = false) throws(Errno) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        if !keepingErrors { posix_spawn_file_actions_adddup2(&actions, 1, 2) }
        if let handingDown {
            posix_spawn_file_actions_adddup2(&actions, handingDown.rawValue, handedDownAt)
        }
        cfarm_spawn_closefrom(&actions, handingDown == nil ? 3 : handedDownAt + 1)
        // The child must not inherit a stop signal's disposition or a blocked mask from us.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var flags = Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        if ownGroup && !newSession {
            flags |= Int16(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        if newSession {
            cfarm_spawnattr_setsid(&attributes, flags)
        } else {
            posix_spawnattr_setflags(&attributes, flags)
        }

        var cArguments: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var cEnvironment: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup($0) } + [nil] }
        defer { for variable in cEnvironment ?? [] { free(variable) } }
        var pid: pid_t = 0
        let status = withEnvironment(&cEnvironment) { environment in
            searchingPath ? posix_spawnp(&pid, executable, &actions, &attributes, &cArguments, environment)
                : posix_spawn(&pid, executable, &actions, &attributes, &cArguments, environment)
        }
        guard status == 0 else { throw Errno(rawValue: status) }
        return pid
    }

    /// `body` given `strings` as a C array (nil: this process's `environ`).
    private static func withEnvironment(_ strings: inout [UnsafeMutablePointer<CChar>?]?,
                                        _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>?) -> Int32) -> Int32 {
        guard strings != nil else { return body(UnsafePointer(environ)) }
        return strings!.withUnsafeBufferPointer { body($0.baseAddress) }
    }

    /// This process's environment, as `NAME=value` strings.
    public static func environmentStrings() -> [String] {
        var strings: [String] = []
        var next = environ
        while let variable = next.pointee {
            strings.append(String(cString: variable))
            next += 1
        }
        return strings
    }

    /// How a child ended.
    public enum Exit: Equatable, Sendable {
        case exited(Int32)
        case signalled(Int32)
    }

    /// How child `pid` ended, collected (waitpid(2) on it alone, so no other child's exit is taken); nil
    /// while it runs (without `blocking`), or when it is not a child of this process (any more).
    public static func exit(ofChild pid: Int32, blocking: Bool = false) -> Exit? {
        var status: Int32 = 0
        let got = waitpid(pid, &status, blocking ? 0 : WNOHANG)
        guard got == pid else { return nil }
        // WIFEXITED and WTERMSIG are macros Swift does not import.
        return status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
    }

    /// Sends `signal` to every process of the group `group` (a child started with `ownGroup`: its pid).
    @discardableResult
    public static func sendToGroup(_ signal: Signal, _ group: Int32) -> Bool {
        group > 0 && Glibc.kill(-group, signal.number) == 0
    }

    /// What `copy` did.
    public enum Copy {
        /// In the parent: the copy's pid.
        case parent(child: Int32)
        /// In the copy.
        case child
    }

    /// fork(2) without exec, for a process with exactly one thread (else EDEADLK: another thread may
    /// hold a lock the copy would wait on forever). In the copy: standard input from /dev/null, output
    /// and error appended to `output`, `handingDown` (unless nil) at descriptor 3, every other
    /// descriptor closed, no signal blocked, and with `newSession` a session of its own.
    public static func copy(output: String, handingDown: FileDescriptor?, newSession: Bool) throws(Errno) -> Copy {
        let pid = cfarm_fork_alone(output, handingDown?.rawValue ?? -1, newSession ? 1 : 0)
        if pid < 0 { throw Errno.current }
        return pid == 0 ? .child : .parent(child: pid)
    }

    /// Ends this process at once with `status` (no clean-up of the Swift runtime's).
    public static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }

    /// What /proc/<pid>/cmdline (and `ps`) show for this process from now on: as many of the words of
    /// `title` as fit in the room its arguments took (see `cfarm_set_title`). Only a copy needs it: it
    /// would otherwise show its parent's arguments, where SPEC §2 wants its role.
    public static func setTitle(_ title: [String]) {
        var strings: [UnsafeMutablePointer<CChar>?] = title.map { strdup($0) }
        defer { for string in strings { free(string) } }
        strings.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { title in
                _ = cfarm_set_title(title.baseAddress, Int32(title.count))
            }
        }
    }

    /// The value of environment variable `name`, if set.
    public static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}

extension Processes {
    /// The name of this machine as gethostname(2) gives it (the node name of this process's UTS
    /// namespace), read once: farm names the processes of a shared spool's hosts by it (SPEC §11). A
    /// copy made without exec runs on the same machine, so it may inherit the value.
    public static let hostName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// How many processors are online.
    public static func onlineProcessors() -> Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// Gives the calling thread, and no other, the nice value `nice` (19: the CPU only when nobody else
    /// wants it). Raising it needs no privilege.
    public static func setThreadNice(_ nice: Int32) throws(Errno) {
        if cfarm_set_thread_nice(nice) != 0 { throw Errno.current }
    }
}

extension Processes {
    /// This process's file mode creation mask (umask), read from /proc/self/status, which leaves it as it
    /// is (umask(2) can only read it by setting it, a moment where another thread's files would get the
    /// wrong mode); umask(2) set and set back where /proc does not say it (kernels before 4.7).
    public static func fileCreationMask() -> UInt32 {
        let status = String(decoding: (try? FileSystem.readFile("/proc/self/status", limit: 1 << 16)) ?? [],
                            as: UTF8.self)
        for line in status.split(separator: "\n") where line.hasPrefix("Umask:") {
            if let mask = UInt32(line.dropFirst(6).drop(while: { $0 == " " || $0 == "\t" }), radix: 8) {
                return mask
            }
        }
        let mask = umask(0o022)
        umask(mask)
        return UInt32(mask)
    }
}
