import FarmProcess
import FarmSpool

/// The user's verbs on one spool: start, scale, pause and resume, stop, reset, reload, add and recover.
/// Every front end calls these (the CLI, `farm top`, `farm serve`, `farm demo`) and only parses what
/// the user gave and presents what came back, so each verb has one set of checks and one set of
/// sentences, wherever it is asked for.
///
/// Each verb lives in a file of its own, as an extension. It returns a typed outcome saying what
/// happened, whose `description` is the sentence to show, or throws a `ControlError` whose code says
/// why it refused and whose cause is the error underneath. Lists are named by a `ListRef` and found
/// with `find`, so a verb on one list checks its list the same way from every front end.
///
/// A value: any thread may use it. Verbs block (they read and write the spool, wait for processes),
/// so an async caller runs them off its cooperative threads.
public struct Control: Sendable {
    public let spool: Spool
    /// What the verbs that start a farm (`start`, `get`) run its processes from: the `farm` executable's
    /// table. A front end that starts nothing (top, serve, the RPC) gives none, and links no role.
    let roles: Roles?

    public init(spool: Spool, roles: Roles? = nil) {
        self.spool = spool
        self.roles = roles
    }

    /// The roles to start a farm from; a front end made without them has no verb that starts one.
    var startingRoles: Roles {
        guard let roles else { preconditionFailure("a Control that starts a farm is made with the farm's roles") }
        return roles
    }

    /// Runs a spool call, its refusal kept as the cause of a `.spoolFailed`.
    func spoolCall<Value>(_ call: () throws(SpoolError) -> Value) throws(ControlError) -> Value {
        do { return try call() } catch { throw ControlError(.spoolFailed, spool.root, cause: error) }
    }
}
