import FarmStatus

/// Where the user is in `farm top`: which screen, which row, which overlay, and what a key does
/// there. Pure: the session feeds it keys and the current lists, and carries out the `Action` it
/// returns (the only things that touch the spool). Owned by the session, on its one thread.
struct TopState: Equatable, Sendable {
    enum Screen: Equatable, Sendable {
        /// The app's first screen: every list.
        case lists
        /// Its second: the resources of one list.
        case resources(listID: String)
    }

    enum Overlay: Equatable, Sendable {
        case help
        /// `R` was pressed: `y` resets, anything else does not.
        case confirmReset
        /// `d` was pressed on a resource: `y` deletes it, anything else does not (SPEC §9).
        case confirmDelete(listID: String, id: String)
    }

    /// What a key asks of the farm.
    enum Action: Equatable, Sendable {
        case quit
        /// One worker more (+1) or fewer (-1).
        case scale(Int)
        /// One transfer a worker more (+1) or fewer (-1).
        case transfers(Int)
        case togglePause
        case reload(listID: String)
        case reset
        /// The reset prompt was dismissed.
        case resetCancelled
        /// Remove resource `id` from list `listID` (`farm item rm`).
        case delete(listID: String, id: String)
        case deleteCancelled
    }

    var screen = Screen.lists
    var overlay: Overlay?
    var lists = Cursor()
    /// Over the resources of the open list, or over those that match `filter`.
    var resources = Cursor()
    /// The selected list, followed by id so it stays selected when lists are added or reordered.
    var selectedListID: String?
    /// The resources screen's search (SPEC §9: id, URL, title, caption or status text); empty for none.
    var filter = ""
    /// `/` was pressed: keys type into `filter` until Enter (keeps it) or Esc (clears it).
    var editingFilter = false

    var listID: String? {
        if case .resources(let id) = screen { return id }
        return nil
    }

    /// Follows the selected list to its place in `ids` (the lists now on screen).
    mutating func follow(_ ids: [String]) {
        if let selectedListID, let index = ids.firstIndex(of: selectedListID) { lists.selected = index }
        lists.select(lists.selected, count: ids.count)
        selectedListID = ids.isEmpty ? nil : ids[lists.selected]
    }

    /// Keeps both selections inside their rows and windows of `page` rows (before each frame).
    mutating func settle(listCount: Int, resourceCount: Int, page: Int) {
        lists.settle(count: listCount, page: page)
        resources.settle(count: resourceCount, page: page)
    }

    /// Reacts to `key`. `ids` are the lists shown, `resourceCount` the rows of the open list, `page`
    /// how many rows fit on screen, `selectedID` the id of the selected resource when it is on screen.
    mutating func handle(_ key: Key, ids: [String], resourceCount: Int, page: Int, selectedID: String? = nil)
        -> Action? {
        if editingFilter {
            // Letters are typed, not moves (j, k, g, G); the arrows and page keys still move.
            if case .character = key { type(key) } else if !move(&resources, key, count: resourceCount, page: page) {
                type(key)
            }
            return nil
        }
        switch overlay {
        case .confirmReset:
            overlay = nil
            return key == .character("y") || key == .character("Y") ? .reset : .resetCancelled
        case .confirmDelete(let list, let id):
            overlay = nil
            return key == .character("y") || key == .character("Y") ? .delete(listID: list, id: id) : .deleteCancelled
        case .help:
            overlay = nil
            return key == .character("q") ? .quit : nil
        case nil:
            break
        }
        switch key {
        case .character("q"), .character("Q"): return .quit
        case .character("+"), .character("="): return .scale(1)
        case .character("-"), .character("_"): return .scale(-1)
        case .character("]"): return .transfers(1)
        case .character("["): return .transfers(-1)
        case .character("p"), .character("P"), .character(" "): return .togglePause
        case .character("?"):
            overlay = .help
            return nil
        case .character("R"):
            overlay = .confirmReset
            return nil
        case .character("r"):
            let id = listID ?? selectedListID
            return id.map { .reload(listID: $0) }
        default:
            break
        }
        switch screen {
        case .lists:
            if move(&lists, key, count: ids.count, page: page) {
                selectedListID = ids.isEmpty ? nil : ids[lists.selected]
            } else if key == .enter || key == .right || key == .character("l"), let id = selectedListID {
                screen = .resources(listID: id)
                resources = Cursor()
                filter = ""
            }
        case .resources:
            if move(&resources, key, count: resourceCount, page: page) {
                break
            } else if key == .character("/") {
                editingFilter = true
            } else if key == .character("d"), let listID, let selectedID {
                overlay = .confirmDelete(listID: listID, id: selectedID)
            } else if key == .escape && !filter.isEmpty {
                setFilter("")
            } else if [.escape, .backspace, .left, .character("h")].contains(key) {
                screen = .lists
                filter = ""
            }
        }
        return nil
    }

    /// A key typed into the filter: Enter keeps it, Esc clears it, Backspace takes a character back.
    private mutating func type(_ key: Key) {
        switch key {
        case .enter:
            editingFilter = false
        case .escape:
            editingFilter = false
            setFilter("")
        case .backspace:
            setFilter(String(filter.dropLast()))
        case .character(let character) where !character.isNewline:
            setFilter(filter + String(character))
        default:
            break
        }
    }

    /// A new filter starts from its first match.
    private mutating func setFilter(_ text: String) {
        guard text != filter else { return }
        filter = text
        resources = Cursor()
    }

    /// Applies a movement key to `cursor`; false when `key` is not one.
    private func move(_ cursor: inout Cursor, _ key: Key, count: Int, page: Int) -> Bool {
        switch key {
        case .up, .character("k"): cursor.move(by: -1, count: count)
        case .down, .character("j"): cursor.move(by: 1, count: count)
        case .pageUp: cursor.move(by: -max(1, page - 1), count: count)
        case .pageDown: cursor.move(by: max(1, page - 1), count: count)
        case .home, .character("g"): cursor.select(0, count: count)
        case .end, .character("G"): cursor.select(count - 1, count: count)
        default: return false
        }
        return true
    }
}
