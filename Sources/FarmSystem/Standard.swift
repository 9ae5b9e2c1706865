import SystemPackage

/// Text to the process's standard output or error, whole and at once (unbuffered: a pipe sees each line when
/// it happens), as the commands write their messages and progress.
public enum Standard {
    public static func output(_ text: String) { write(text, to: .standardOutput) }
    public static func error(_ text: String) { write(text, to: .standardError) }

    private static func write(_ text: String, to fd: FileDescriptor) {
        _ = try? fd.writeAll(Array(text.utf8))
    }
}
