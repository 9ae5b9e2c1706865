import CFarmShims
import FarmSpool
import Glibc

/// Starts farm processes: the supervisor (detached, in a session of its own) and its workers and
/// watcher. Children run the same executable as their parent, read nothing from the terminal, and
/// write whatever they print to the spool's log.
///
/// `farm start` starts the supervisor, and the supervisor its workers and watcher, as copies of
/// themselves (`copy`): fork without exec. An exec'd farm spends about 8 ms of CPU before its first
/// claim (mapping and relocating the binary and its ~40 libraries, the Swift runtime's first type
/// lookups, argument parsing); a copy starts with all of that done, and `farm start` returns that
/// much sooner.
public enum Spawn {
    /// This process's own executable, so a child always runs the same build as its parent.
    public static let farmExecutable: String = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return count > 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : CommandLine.arguments[0]
    }()

    /// The descriptor a supervisor finds its already-locked supervisor lock on (see `handingDown`).
    public static let lockDescriptor: Int32 = 3

    /// Starts `farm <arguments>` and returns its pid. With `newSession` it outlives this process and
    /// any terminal. `handingDown` (a locked `supervisor.lock`) becomes the child's descriptor 3: the
    /// lock then belongs to the child as well, so no other process can slip in a second supervisor
    /// between our unlock and its lock.
    public static func farm(_ arguments: [String], spool: Spool, newSession: Bool = false,
                            handingDown lock: Int32? = nil) throws(SpoolError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, spool.logFile, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        if let lock {
            // dup2 clears close-on-exec on the copy; the lock is never already at 3 (stdio plus the
            // lock were opened first, and we place it above 3 before handing it down).
            posix_spawn_file_actions_adddup2(&actions, lock, lockDescriptor)
        }
        cfarm_spawn_closefrom(&actions, lock == nil ? 3 : lockDescriptor + 1)
        // The child must not inherit a stop signal's disposition or a blocked mask from us.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        let flags = Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        if newSession {
            cfarm_spawnattr_setsid(&attributes, flags)
        } else {
            posix_spawnattr_setflags(&attributes, flags)
        }

        let argv = ["farm"] + arguments
        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, farmExecutable, &actions, &attributes, &cArguments, environ)
        guard status == 0 else {
            throw SpoolError(.io, "cannot start `farm \(arguments.first ?? "")`: \(String(cString: strerror(status)))")
        }
        return pid
    }

    /// Runs `role` in a copy of this process and returns the copy's pid; the copy exits with what
    /// `role` returns and shows as `farm <title>` (as many words as fit; `arguments` when nil) in
    /// `ps`. `newSession` and `handingDown` are those of `farm`. A process with more than one
    /// thread cannot be copied safely (another thread may hold a lock the copy would wait on
    /// forever): it starts `farm <arguments>` instead, which must run the same role.
    public static func copy(_ arguments: [String], title: [String]? = nil, spool: Spool, newSession: Bool = false,
                            handingDown lock: Int32? = nil, running role: () -> Int32) throws(SpoolError) -> pid_t {
        let pid = cfarm_fork_alone(spool.logFile, lock ?? -1, newSession ? 1 : 0)
        if pid < 0 {
            if errno == EDEADLK { return try farm(arguments, spool: spool, newSession: newSession, handingDown: lock) }
            throw SpoolError(.io, "cannot start `farm \(arguments.first ?? "")`: \(String(cString: strerror(errno)))")
        }
        guard pid == 0 else { return pid }
        retitle(["farm"] + (title ?? arguments))
        exit(role())
    }

    /// What /proc/<pid>/cmdline shows for this process from now on (see `cfarm_set_title`).
    static func retitle(_ title: [String]) {
        var strings: [UnsafeMutablePointer<CChar>?] = title.map { strdup($0) }
        defer { for string in strings { free(string) } }
        strings.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { title in
                _ = cfarm_set_title(title.baseAddress, Int32(title.count))
            }
        }
    }
}
