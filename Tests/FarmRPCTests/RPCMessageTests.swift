import FarmJSON
import FarmRPC
import Testing

/// Bodies read as aria2 reads them (src/rpc_helper.cc, src/HttpServerBodyCommand.cc), and aria2's pagination.
@Suite struct RPCMessageTests {
    private func parse(_ text: String) -> RPCMessage { RPCMessage.parse(Array(text.utf8)) }

    @Test func aCallKeepsItsIdMethodAndParams() {
        let message = parse(#"{"jsonrpc":"2.0","id":"q","method":"aria2.tellActive","params":["token:x",["gid"]]}"#)
        #expect(message == .single(.request(RPCRequest(
            id: .string("q"), method: "aria2.tellActive",
            params: [.string("token:x"), .array([.string("gid")])]))))
        #expect(parse(#"{"id":1,"method":"system.listMethods"}"#)
            == .single(.request(RPCRequest(id: .number(JSONNumber(1)), method: "system.listMethods", params: []))))
    }

    @Test func whatIsNotARequestGetsJSONRPCsErrors() {
        #expect(parse("{") == .refused(.parse))
        #expect(parse("") == .refused(.parse))
        #expect(parse(#""aria2.getVersion""#) == .refused(.invalidRequest))
        #expect(parse("17") == .refused(.invalidRequest))
        #expect(parse(#"{"method":"aria2.getVersion"}"#) == .single(.invalid(.invalidRequest, id: .null)))
        #expect(parse(#"{"id":3,"method":4}"#) == .single(.invalid(.invalidRequest, id: .number(JSONNumber(3)))))
        #expect(parse(#"{"id":3,"method":"m","params":{"a":1}}"#) == .single(.invalid(.invalidParams, id: .number(JSONNumber(3)))))
        #expect(RPCError.parse.httpStatus == 500 && RPCError.invalidRequest.httpStatus == 400
                && RPCError.unauthorized.httpStatus == 400)
    }

    @Test func aBatchAnswersEachObjectAndSkipsTheRest() {
        guard case .batch(let calls) = parse(#"[{"id":1,"method":"a"}, 2, {"method":"b"}, []]"#) else {
            Issue.record("not a batch")
            return
        }
        #expect(calls == [.request(RPCRequest(id: .number(JSONNumber(1)), method: "a", params: [])),
                          .invalid(.invalidRequest, id: .null)])
        #expect(parse("[]") == .batch([]))
    }

    @Test func paginationIsAria2s() {
        // tellWaiting(offset, num) over 5 downloads, as aria2's getPaginationRange cuts them.
        #expect(Aria2RPC.range(offset: 0, num: 3, size: 5) == 0..<3)
        #expect(Aria2RPC.range(offset: 3, num: 10, size: 5) == 3..<5)
        #expect(Aria2RPC.range(offset: 5, num: 1, size: 5).isEmpty)
        #expect(Aria2RPC.range(offset: -1, num: 2, size: 5) == 3..<5)
        #expect(Aria2RPC.range(offset: -1, num: 9, size: 5) == 0..<5)
        #expect(Aria2RPC.range(offset: -6, num: 1, size: 5).isEmpty)
        #expect(Aria2RPC.range(offset: 0, num: 0, size: 5).isEmpty)
        #expect(Aria2RPC.range(offset: Int.min, num: 3, size: 5).isEmpty)
    }
}
