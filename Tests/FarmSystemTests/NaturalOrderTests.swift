import Testing
import FarmSystem

@Suite struct NaturalOrderTests {
    @Test func numbersCompareByValueAndCaseIsIgnored() {
        let names = ["Set 10.json", "set 2.json", "Set 1.json", "Set 02b.json", "Set 2a.json", "Set.json",
                     "a", "B"]
        let sorted = names.sorted(by: NaturalOrder.areInIncreasingOrder)
        #expect(sorted == ["a", "B", "Set 1.json", "set 2.json", "Set 2a.json", "Set 02b.json", "Set 10.json",
                           "Set.json"])
    }

    @Test func theOrderIsTotal() {
        let order = NaturalOrder.areInIncreasingOrder
        #expect(order("Set 7", "set 7") != order("set 7", "Set 7"))
        #expect(!NaturalOrder.areInIncreasingOrder("x", "x"))
    }
}
