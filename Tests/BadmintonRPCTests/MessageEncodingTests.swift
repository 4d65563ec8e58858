import BadmintonRPC
import PropertyBased
import Testing

@Suite("Message encoding through protoc-c")
struct MessageEncodingTests {
  private func roundTrips<M: ProtobufMessage>(_ message: M) -> Bool {
    (try? M(serializedBytes: message.serializedBytes())) == message
  }

  @Test("every message survives encode then decode")
  func everyMessage_roundTrips() async throws {
    await propertyCheck(count: 300, input: MessageGen.envelopes) { #expect(roundTrips($0)) }
    await propertyCheck(count: 200, input: MessageGen.statuses) { #expect(roundTrips($0)) }
    await propertyCheck(count: 100, input: MessageGen.metadataEntries) { #expect(roundTrips($0)) }
    await propertyCheck(count: 100, input: MessageGen.fieldViolations) { #expect(roundTrips($0)) }
    await propertyCheck(count: 100, input: MessageGen.methodInfos) { #expect(roundTrips($0)) }
    await propertyCheck(count: 100, input: MessageGen.methodLists) { #expect(roundTrips($0)) }
    await propertyCheck(count: 100, input: MessageGen.healthRequests) { #expect(roundTrips($0)) }
    await propertyCheck(count: 50, input: MessageGen.healthResponses) { #expect(roundTrips($0)) }
    #expect(roundTrips(ListMethodsRequest()))
  }

  @Test("an envelope decodes from the reference encoding, and encodes to the same bytes")
  func envelope_matchesReferenceEncoding() async throws {
    await propertyCheck(count: 500, input: MessageGen.envelopes) { envelope in
      let reference = ReferenceEncoder.encode(envelope)
      #expect((try? Envelope(serializedBytes: reference)) == envelope)
      #expect(envelope.serializedBytes() == reference)
    }
  }

  @Test("method info encodes as the reference encoder does")
  func methodInfo_matchesReferenceEncoding() async throws {
    await propertyCheck(count: 200, input: MessageGen.methodInfos) { info in
      #expect((try? MethodInfo(serializedBytes: ReferenceEncoder.encode(info))) == info)
      #expect(info.serializedBytes() == ReferenceEncoder.encode(info))
    }
  }

  @Test("hand-made reference bytes decode to the envelope they describe")
  func handMadeVectors_decode() throws {
    // {call_id: 1, kind: REQUEST, method: "/badminton.rpc.v1.Health/Check", timeout_ms: 250,
    //  metadata: [{locale: zh-CN}]}
    let method = Array("/badminton.rpc.v1.Health/Check".utf8)
    let request: [UInt8] =
      [0x08, 0x01, 0x10, 0x01, 0x1A, 0x1E] + method + [0x20, 0xFA, 0x01]
      + [0x2A, 0x0F, 0x0A, 0x06] + Array("locale".utf8) + [0x12, 0x05] + Array("zh-CN".utf8)
    let decoded = try Envelope(serializedBytes: request)
    #expect(decoded.callID == 1)
    #expect(decoded.kind == .request)
    #expect(decoded.method == "/badminton.rpc.v1.Health/Check")
    #expect(decoded.timeoutMs == 250)
    #expect(decoded.metadata == [Metadata(key: "locale", value: "zh-CN")])
    #expect(decoded.status == nil)

    // {call_id: 300, kind: RESPONSE, payload: 08 01, status: {code: NOT_FOUND, reason: "X"}}
    let response: [UInt8] = [
      0x08, 0xAC, 0x02, 0x10, 0x02, 0x32, 0x02, 0x08, 0x01, 0x3A, 0x05, 0x08, 0x05, 0x1A, 0x01,
      0x58,
    ]
    let answer = try Envelope(serializedBytes: response)
    #expect(answer.callID == 300)
    #expect(answer.kind == .response)
    #expect(answer.payload == [0x08, 0x01])
    #expect(answer.status == Status(code: .notFound, reason: "X"))
    #expect(try HealthCheckResponse(serializedBytes: answer.payload).status == .serving)
  }

  @Test("decoding accepts fields out of order and skips unknown fields, as proto3 requires")
  func decoding_isLenient() throws {
    // kind first, an unknown varint field 99, an unknown length-delimited field 100, then call_id.
    let bytes: [UInt8] = [0x10, 0x06, 0x98, 0x06, 0x07, 0xA2, 0x06, 0x02, 0xAA, 0xBB, 0x08, 0x07]
    let decoded = try Envelope(serializedBytes: bytes)
    #expect(decoded == Envelope(callID: 7, kind: .ping))
  }

  @Test("bytes that are not a message are refused with the message's name")
  func garbage_isRefused() {
    // A length-delimited field that claims more bytes than there are.
    #expect(throws: MessageDecodingError(messageType: "badminton.rpc.v1.Envelope")) {
      try Envelope(serializedBytes: [0x1A, 0x10, 0x41])
    }
    // A varint that never ends.
    #expect(throws: MessageDecodingError.self) {
      try Envelope(serializedBytes: [
        0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
      ])
    }
    // Wire type 7 does not exist.
    #expect(throws: MessageDecodingError.self) { try Status(serializedBytes: [0x0F, 0x00]) }
  }

  @Test("the empty encoding is the all-defaults message")
  func emptyBytes_areDefaults() throws {
    #expect(try Envelope(serializedBytes: []) == Envelope())
    #expect(Envelope().serializedBytes().isEmpty)
  }
}
