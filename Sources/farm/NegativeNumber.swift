import ArgumentParser

/// A number argument that a user may give negative (`farm scale -1`, `farm limit -5`): ArgumentParser reads
/// `-1` as an option, and a positional argument skips it, so the user met "Missing expected argument" or
/// "Unknown option" where `farm scale 0` says the range. Such a command takes its one argument with
/// `@Argument(parsing: .allUnrecognized)`, which keeps what looks like an option too, and `value` refuses
/// there what ArgumentParser would have refused; a negative number goes on to the command's own check,
/// refused by range like any number out of range. Stateless.
enum NegativeNumber {
    /// The one argument of `arguments` (all that the command did not recognise), nil when there is none.
    static func value(_ arguments: [String], name: String) throws -> String? {
        if let unknown = arguments.first(where: { $0.hasPrefix("-") && !isNegativeNumber($0) }) {
            throw ValidationError("Unknown option '\(unknown)'")
        }
        guard arguments.count <= 1 else { throw ValidationError("Unexpected argument '\(arguments[1])'") }
        return arguments.first
    }

    /// `value` of a whole number that must be given: refused as ArgumentParser refuses a missing one, or one
    /// that is no number.
    static func int(_ arguments: [String], name: String) throws -> Int {
        guard let text = try value(arguments, name: name) else {
            throw ValidationError("Missing expected argument '<\(name)>'")
        }
        guard let number = Int(text) else { throw ValidationError("The value '\(text)' is invalid for '<\(name)>'") }
        return number
    }

    /// "-1", "-0.5", "-5M": a minus sign, then a digit or a point.
    private static func isNegativeNumber(_ text: String) -> Bool {
        guard text.hasPrefix("-"), let next = text.dropFirst().first else { return false }
        return next.isASCII && (next.isNumber || next == ".")
    }
}
