/// The `?` screen: every key, and what the header's numbers mean. Stateless.
enum HelpScreen {
    static let lines = [
        " Keys",
        "   Up/Down, j/k      select a row (PgUp/PgDn, Home/End: a page, an end)",
        "   Enter             open the selected list: one row per resource",
        "   Esc, Backspace    back to the lists",
        "   /                 filter a list's resources (Enter keeps it, Esc clears it)",
        "   d                 delete the selected resource from its list (asks)",
        "   + / -             one worker more / fewer (1 to 64)",
        "   ] / [             one transfer a worker more / fewer (1 to 256)",
        "   p                 pause or resume every transfer (bytes are kept)",
        "   r                 download the selected list again",
        "   R                 reset: stop everything, delete every list (asks)",
        "   ?                 this help",
        "   q, Ctrl-C         quit (the farm keeps running)",
        "",
        " N at once: running workers × transfers each; files/s and MB/s over 10 s;",
        " ETA: the resources left at that pace; CHANGED: since a resource's",
        " status last changed. The screen follows the spool as it changes.",
    ]

    static func rows(width: Int, height: Int) -> [Row] {
        lines.prefix(max(0, height)).map { Row(Cells.fit($0, width), $0 == " Keys" ? .bold : .normal) }
    }
}
