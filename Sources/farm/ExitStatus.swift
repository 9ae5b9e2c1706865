/// The EXIT STATUS section that ends each command's help (and so its man page, which bin/package makes from
/// the help): the codes a script may rely on, laid out alike in every command. Each code is padded to four
/// columns and followed by its meaning; a meaning of several lines is given with its line breaks (kept as
/// they were written, so the help reads as before), its later lines indented under the first. 64,
/// ArgumentParser's code for a command line that does not parse, is always there and always last.
enum ExitStatus {
    /// 1 where the spool could not be opened or written.
    static let spoolUnusable = "The spool cannot be used."
    /// 1 for a command that reads a spool and makes none.
    static let noSpool = "There is no spool there."

    /// The section, to be appended to a discussion: `codes` in the order given, then 64 meaning `parse`.
    static func section(_ codes: KeyValuePairs<Int, String>,
                        parse: String = "The command line does not parse.") -> String {
        var text = "\n\nEXIT STATUS:"
        for (code, meaning) in Array(codes) + [(key: 64, value: parse)] {
            let number = String(code)
            let lines = meaning.split(separator: "\n", omittingEmptySubsequences: false)
            text += "\n  " + number + String(repeating: " ", count: max(1, 4 - number.count)) + lines[0]
            for line in lines.dropFirst() { text += "\n      " + line }
        }
        return text
    }
}
