import BadmintonAPI
import BadmintonJSON
import BadmintonRPC
import Testing

@Suite("Hostile input is refused, never trapped on")
struct HostileInputTests {
  /// The error encoding `bytes` as `descriptor` raises, or nil when it is accepted.
  private func binaryError(_ bytes: [UInt8], _ descriptor: CMessageDescriptor) -> ProtoJSONError? {
    do {
      _ = try ProtoJSON.encode(bytes, as: descriptor)
      return nil
    } catch {
      return error
    }
  }

  private func jsonError(_ json: String, _ descriptor: CMessageDescriptor) -> ProtoJSONError? {
    do {
      _ = try ProtoJSON.decode(json, as: descriptor)
      return nil
    } catch {
      return error
    }
  }

  @Test("a nested length that runs past its message is refused at line 0")
  func nestedLengthOverrun() {
    // Profile.reputation (field 13) of length 1 holding only the tag of an unknown
    // length-delimited field, whose length would be read from the outer message.
    let error = binaryError([0x6A, 0x01, 0x7A, 0x00], Profile.cDescriptor)
    #expect(error?.line == 0 && error?.column == 0)
    // Truncated tags, lengths past the end and a varint of 11 bytes.
    for bytes: [UInt8] in [
      [0x6A], [0x6A, 0x05, 0x08], [0x12, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x41],
      [0x08] + [UInt8](repeating: 0xFF, count: 10) + [0x01], [0x6A, 0x02, 0x08],
    ] {
      #expect(binaryError(bytes, Profile.cDescriptor) != nil, "\(bytes)")
    }
  }

  @Test("a string that is not UTF-8 is refused, not replaced")
  func invalidUTF8() {
    // Profile.nickname (field 2) holding 0xFF.
    #expect(binaryError([0x12, 0x01, 0xFF], Profile.cDescriptor)?.line == 0)
    #expect(binaryError([0x12, 0x02, 0xC3, 0xA9], Profile.cDescriptor) == nil)
  }

  @Test("a string holding U+0000 is refused, as its JSON could not be read back")
  func stringWithNUL() {
    // The fuzz target's input: NearbyPlayersRequest with an unknown fixed64 field 5, then
    // page_token (field 3) holding "\0\0\0H". It printed `"\u0000\u0000\u0000H"`, which
    // the JSON parser refuses.
    let found: [UInt8] = [
      0x29, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x01, 0x88, 0x1A, 0x04, 0x00, 0x00, 0x00, 0x48,
    ]
    let error = binaryError(found, NearbyPlayersRequest.cDescriptor)
    #expect(error?.line == 0 && error?.column == 0)
    #expect(error?.message.contains("page_token") == true)
    // The same field without the NUL prints.
    #expect(binaryError([0x1A, 0x01, 0x48], NearbyPlayersRequest.cDescriptor) == nil)
  }

  @Test("a singular message repeated many times merges in linear work")
  func repeatedSingularMessage() throws {
    // Event.message_receipt (field 21) 20,000 times, each with one message id: the merged
    // receipt holds all of them. Quadratic merging would copy 200 million ids here.
    let one: [UInt8] = [0xAA, 0x01, 0x03, 0x1A, 0x01, 0x07]
    let bytes = Array([[UInt8]](repeating: one, count: 20_000).joined())
    let json = try ProtoJSON.encode(bytes, as: Event.cDescriptor)
    let event = try ProtoJSON.decode(json, as: Event.self)
    guard case .messageReceipt(let receipt) = event.body else {
      Issue.record("no receipt in \(json.prefix(200))")
      return
    }
    #expect(receipt.messageIDs.count == 20_000)
    #expect(receipt.messageIDs.allSatisfy { $0 == 7 })
  }

  @Test("integers are read exactly: no rounding through floating point")
  func exactIntegers() throws {
    let id = LoginResponse.cDescriptor
    for (literal, expected) in [
      ("\"9007199254740993\"", Int64(9_007_199_254_740_993)),
      ("\"9007199254740993.0\"", 9_007_199_254_740_993), ("\"9223372036854775807.0\"", .max),
      ("-9223372036854775808", .min), ("1e3", 1000), ("12.5e1", 125), ("0e999999999", 0),
    ] {
      let response = try ProtoJSON.decode("{\"userId\": \(literal)}", as: LoginResponse.self)
      #expect(response.userID == expected, "\(literal)")
    }
    for literal in ["1e-400", "1.00000000000000000001", "0.5", "\"12.25\""] {
      #expect(
        jsonError("{\"userId\": \(literal)}", id)?.message.contains("not an integer") == true,
        "\(literal)")
    }
    for literal in ["9223372036854775808", "1e19", "1e999999999", "-9223372036854775809"] {
      #expect(
        jsonError("{\"userId\": \(literal)}", id)?.message.contains("out of range") == true,
        "\(literal)")
    }
    // int32 and uint64 edges.
    #expect(jsonError("{\"selfLevel\": 2147483648}", Profile.cDescriptor) != nil)
    #expect(jsonError("{\"selfLevel\": -2147483648}", Profile.cDescriptor) == nil)
    #expect(jsonError("{\"afterSequence\": -1}", SubscribeRequest.cDescriptor) != nil)
    #expect(
      try ProtoJSON.decode(
        "{\"afterSequence\": \"18446744073709551615\"}", as: SubscribeRequest.self
      )
      .afterSequence == .max)
  }

  @Test("\\u0000 and lone surrogates in strings are refused with a position")
  func stringEscapes() {
    let nul = jsonError("{\"nickname\": \"a\\u0000b\"}", Profile.cDescriptor)
    #expect(nul?.line == 1 && nul?.column == 16)
    #expect(jsonError("{\"nickname\": \"\\ud800\"}", Profile.cDescriptor) != nil)
    #expect(jsonError("{\"nickname\": \"\\udc00\"}", Profile.cDescriptor) != nil)
    #expect(jsonError("{\"nickname\": \"\\ud83c\\udff8\"}", Profile.cDescriptor) == nil)
  }

  @Test("nesting deeper than 64 levels is refused, not recursed into")
  func deepNesting() {
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    #expect(jsonError("{\"nickname\": \(deep)}", Profile.cDescriptor) != nil)
  }
}
