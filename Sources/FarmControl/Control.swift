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

    public init(spool: Spool) {
        self.spool = spool
    }

    /// Runs a spool call, its refusal kept as the cause of a `.spoolFailed`.
    func spoolCall<Value>(_ call: () throws(SpoolError) -> Value) throws(ControlError) -> Value {
        do { return try call() } catch { throw ControlError(.spoolFailed, spool.root, cause: error) }
    }
}
