import ArgumentParser

/// A number argument that a user may give negative (`farm scale -1`, `farm limit -5`): ArgumentParser reads
/// `-1` as an option, so the user met "Missing expected argument" or "Unknown option" where `farm scale 0`
/// says the range. Such a command keeps its number optional and collects what it does not recognise in a
/// hidden `@Argument(parsing: .allUnrecognized)`; `value` takes the negative number from there, for the
/// command's own check to refuse by range like any other number out of range.
enum NegativeNumber {
    /// `given` when the argument parsed as usual, else the negative number among `unrecognized`; nil when
    /// there is neither. Anything else unrecognized is refused as the unknown option it is.
    static func value(_ given: String?, unrecognized: [String]) throws -> String? {
        // A short group ("-15") is also split into its letters: ArgumentParser may hand the argument back
        // once for each.
        var rest: [String] = []
        for argument in unrecognized where rest.last != argument { rest.append(argument) }
        if let unknown = rest.first(where: { !isNegativeNumber($0) }) ?? (given != nil ? rest.first : rest.dropFirst().first) {
            throw ValidationError("Unknown option '\(unknown)'")
        }
        return given ?? rest.first
    }

    /// `value` for an `Int` argument that must be given: refused as ArgumentParser refuses a missing one, or
    /// a value that is not a whole number.
    static func int(_ given: Int?, unrecognized: [String], name: String) throws -> Int {
        guard let text = try value(given.map(String.init), unrecognized: unrecognized) else {
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
