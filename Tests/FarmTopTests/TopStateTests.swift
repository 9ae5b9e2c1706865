import Testing

@testable import FarmTop

/// What each key does, on which screen, without a terminal.
@Suite struct TopStateTests {
    private let ids = ["aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb", "cccccccccccccccc"]

    @Test func arrowsAndVimKeysSelectWithinBounds() {
        var state = TopState()
        state.follow(ids)
        #expect(state.selectedListID == ids[0])
        _ = state.handle(.up, ids: ids, resourceCount: 0, page: 10)
        #expect(state.lists.selected == 0)
        _ = state.handle(.down, ids: ids, resourceCount: 0, page: 10)
        _ = state.handle(.character("j"), ids: ids, resourceCount: 0, page: 10)
        _ = state.handle(.down, ids: ids, resourceCount: 0, page: 10)
        #expect(state.lists.selected == 2)
        #expect(state.selectedListID == ids[2])
        _ = state.handle(.character("k"), ids: ids, resourceCount: 0, page: 10)
        #expect(state.selectedListID == ids[1])
        _ = state.handle(.home, ids: ids, resourceCount: 0, page: 10)
        #expect(state.lists.selected == 0)
        _ = state.handle(.end, ids: ids, resourceCount: 0, page: 10)
        #expect(state.lists.selected == 2)
    }

    @Test func theSelectionFollowsItsListWhenListsAreAdded() {
        var state = TopState()
        state.follow(ids)
        _ = state.handle(.down, ids: ids, resourceCount: 0, page: 10)
        state.follow(["0000000000000000"] + ids)
        #expect(state.lists.selected == 2)
        #expect(state.selectedListID == ids[1])
        state.follow([])
        #expect(state.selectedListID == nil)
    }

    @Test func enterOpensAListAndEscOrBackspaceGoBack() {
        var state = TopState()
        state.follow(ids)
        _ = state.handle(.down, ids: ids, resourceCount: 0, page: 10)
        #expect(state.handle(.enter, ids: ids, resourceCount: 0, page: 10) == nil)
        #expect(state.screen == .resources(listID: ids[1]))
        _ = state.handle(.pageDown, ids: ids, resourceCount: 100, page: 10)
        #expect(state.resources.selected == 9)
        _ = state.handle(.escape, ids: ids, resourceCount: 100, page: 10)
        #expect(state.screen == .lists)
        _ = state.handle(.enter, ids: ids, resourceCount: 0, page: 10)
        #expect(state.resources == Cursor(), "a list opens at its top")
        _ = state.handle(.backspace, ids: ids, resourceCount: 0, page: 10)
        #expect(state.screen == .lists)
        // Nothing to open in an empty spool.
        var empty = TopState()
        _ = empty.handle(.enter, ids: [], resourceCount: 0, page: 10)
        #expect(empty.screen == .lists)
    }

    @Test func keysThatActOnTheFarm() {
        var state = TopState()
        state.follow(ids)
        #expect(state.handle(.character("+"), ids: ids, resourceCount: 0, page: 10) == .scale(1))
        #expect(state.handle(.character("-"), ids: ids, resourceCount: 0, page: 10) == .scale(-1))
        #expect(state.handle(.character("p"), ids: ids, resourceCount: 0, page: 10) == .togglePause)
        #expect(state.handle(.character("r"), ids: ids, resourceCount: 0, page: 10) == .reload(listID: ids[0]))
        _ = state.handle(.end, ids: ids, resourceCount: 0, page: 10)
        _ = state.handle(.enter, ids: ids, resourceCount: 0, page: 10)
        #expect(state.handle(.character("r"), ids: ids, resourceCount: 5, page: 10) == .reload(listID: ids[2]))
        #expect(state.handle(.character("q"), ids: ids, resourceCount: 5, page: 10) == .quit)
    }

    @Test func resetAsksFirst() {
        var state = TopState()
        #expect(state.handle(.character("R"), ids: ids, resourceCount: 0, page: 10) == nil)
        #expect(state.overlay == .confirmReset)
        #expect(state.handle(.character("n"), ids: ids, resourceCount: 0, page: 10) == .resetCancelled)
        #expect(state.overlay == nil)
        _ = state.handle(.character("R"), ids: ids, resourceCount: 0, page: 10)
        // Even `q` only answers the question.
        #expect(state.handle(.character("q"), ids: ids, resourceCount: 0, page: 10) == .resetCancelled)
        _ = state.handle(.character("R"), ids: ids, resourceCount: 0, page: 10)
        #expect(state.handle(.character("y"), ids: ids, resourceCount: 0, page: 10) == .reset)
    }

    @Test func helpClosesOnAnyKey() {
        var state = TopState()
        _ = state.handle(.character("?"), ids: ids, resourceCount: 0, page: 10)
        #expect(state.overlay == .help)
        #expect(state.handle(.character("+"), ids: ids, resourceCount: 0, page: 10) == nil,
                "closing the help does nothing else")
        #expect(state.overlay == nil)
    }

    @Test func terminalCodesBecomeKeys() {
        #expect(Key(codePoint: 13) == .enter)
        #expect(Key(codePoint: 10) == .enter)
        #expect(Key(codePoint: 27) == .escape)
        #expect(Key(codePoint: 127) == .backspace)
        #expect(Key(codePoint: 0x71) == .character("q"))
        #expect(Key(codePoint: 0xD800) == .other)
    }

    @Test func theWindowScrollsOnlyWhenTheSelectionLeavesIt() {
        var cursor = Cursor()
        for _ in 0..<12 { cursor.move(by: 1, count: 100) }
        cursor.settle(count: 100, page: 10)
        #expect(cursor.top == 3)
        #expect(cursor.window(count: 100, page: 10) == 3..<13)
        cursor.move(by: -5, count: 100)
        cursor.settle(count: 100, page: 10)
        #expect(cursor.top == 3, "moving inside the window does not scroll")
        cursor.select(99, count: 100)
        cursor.settle(count: 100, page: 10)
        #expect(cursor.window(count: 100, page: 10) == 90..<100)
        // The list shrank (a reset): the selection and window follow.
        cursor.settle(count: 4, page: 10)
        #expect(cursor.selected == 3 && cursor.top == 0)
    }
}
