import FarmJSON
import FarmRPC

/// libFuzzer's entry (`bin/fuzz rpc`): any bytes as the body of `POST /jsonrpc` or a WebSocket frame of aria2's
/// RPC (SPEC §16). Reading never traps; what is read is what aria2 reads (a request keeps its id, method and
/// params, and the same request written back reads the same); every answer written for it is JSON with the id
/// it came with; and aria2's pagination, for numbers taken from the bytes, stays within the list.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRPC(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let calls: [RPCMessage.Call]
    switch RPCMessage.parse(bytes) {
    case .refused(let error):
        precondition([-32700, -32600].contains(error.code), "refused with \(error)")
        calls = []
    case .single(let call): calls = [call]
    case .batch(let batch): calls = batch
    }
    for call in calls {
        switch call {
        case .request(let request):
            let written = JSONValue.object([JSONMember("id", request.id), JSONMember("method", .string(request.method)),
                                            JSONMember("params", .array(request.params))])
            // Compared as written: writing sorts an object's members, which a JSONValue compares in order.
            guard case .single(.request(let back)) = RPCMessage.parse(JSON.encode(written)),
                  back.method == request.method, same(back.id, request.id),
                  same(.array(back.params), .array(request.params)) else {
                preconditionFailure("\(request) does not read back as itself")
            }
            let answer = JSON.encode(RPCResponse.error(.noSuchMethod(request.method), id: request.id))
            let read = (try? JSONParser.parse(answer))?["id"]
            precondition(read.map { same($0, request.id) } == true, "the answer lost the id \(request.id)")
        case .invalid(let error, let id):
            precondition([-32600, -32602].contains(error.code), "invalid with \(error)")
            let read = (try? JSONParser.parse(JSON.encode(RPCResponse.error(error, id: id))))?["id"]
            precondition(read.map { same($0, id) } == true, "the answer lost the id \(id)")
        }
    }
    if bytes.count >= 3 {
        let offset = Int(Int8(bitPattern: bytes[0])), num = Int(bytes[1]), size = Int(bytes[2])
        let range = Aria2RPC.range(offset: offset, num: num, size: size)
        precondition(range.lowerBound >= 0 && range.upperBound <= size && range.count <= num,
                     "range(\(offset), \(num), \(size)) is \(range)")
    }
    return 0
}

private func same(_ x: JSONValue, _ y: JSONValue) -> Bool { JSON.encode(x) == JSON.encode(y) }
