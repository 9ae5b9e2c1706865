/// What went wrong, in one domain of farm (`SpoolErrorCode.leaseLost`, `ControlErrorCode.unknownList`):
/// the name callers compare and switch on, and the words of the one sentence (SPEC §3) that a
/// `DomainError` with that code says. A domain's codes are one enum, each case documented with what it
/// means and what its cause is (farm serve's are the HTTP statuses it answers with). An enum rather
/// than an open struct: farm is one package, so a code added makes the compiler name every `switch`
/// that must decide about it, and those that mean "all the others" say `default`. A value; any thread
/// may use it.
public protocol ErrorCode: Hashable, Sendable {
    /// The sentence a user reads for an error of this code about `subject`, with `cause` under it:
    /// what is wrong and what to do.
    func sentence(subject: String, cause: (any Error)?) -> String
}

extension ErrorCode {
    /// A domain whose throwers write the whole sentence, cause included, says its subject.
    public func sentence(subject: String, cause: (any Error)?) -> String { subject }
}
