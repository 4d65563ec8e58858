import BadmintonRPC
import Testing

@Suite("Protocol violations")
struct ProtocolViolationTests {
  /// One way to break the protocol: what to send (after an optional opening) and the reason
  /// the GOAWAY must name.
  struct Case: CustomTestStringConvertible, Sendable {
    let name: String
    let opening: [Envelope]
    let bytes: [UInt8]
    let reason: String
    let code: StatusCode
    var testDescription: String { name }
  }

  static let limit = 64 * 1024

  static let cases: [Case] = [
    Case(
      name: "reserved flag bits", opening: [],
      bytes: RawFrames.frame(Raw.request(1, "echo:x").serializedBytes(), flags: 0x02),
      reason: "RESERVED_FLAGS_SET", code: .invalidArgument),
    Case(
      name: "body over the limit (header only)", opening: [],
      bytes: [0x00, 0x00, 0x01, 0x00, 0x01],
      reason: "FRAME_TOO_LARGE", code: .resourceExhausted),
    Case(
      name: "corrupt zstd body", opening: [],
      bytes: RawFrames.frame([0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x01, 0x02, 0x03], flags: 1),
      reason: "COMPRESSED_BODY_CORRUPT", code: .invalidArgument),
    Case(
      name: "zstd body decompressing past the limit", opening: [],
      bytes: RawFrames.frame(
        RawFrames.zstdCompress(Array(repeating: 0, count: 1 << 20), windowLog: 10), flags: 1),
      reason: "DECOMPRESSED_BODY_TOO_LARGE", code: .resourceExhausted),
    Case(
      name: "zstd window over the limit", opening: [],
      bytes: RawFrames.frame(RawFrames.zstdCompress(Array(repeating: 0, count: 1 << 20)), flags: 1),
      reason: "COMPRESSION_WINDOW_TOO_LARGE", code: .resourceExhausted),
    Case(
      name: "body that is not an envelope", opening: [],
      bytes: RawFrames.frame([0x1A, 0x10, 0x41]),
      reason: "ENVELOPE_MALFORMED", code: .invalidArgument),
    Case(
      name: "REQUEST reusing an open call id", opening: [Raw.request(5, "gate:never")],
      bytes: RawFrames.frame(Raw.request(5, "echo:again").serializedBytes()),
      reason: "CALL_ID_REUSED", code: .invalidArgument),
    Case(
      name: "REQUEST with call id 0", opening: [],
      bytes: RawFrames.frame(Raw.request(0, "echo:x").serializedBytes()),
      reason: "CALL_ID_ZERO", code: .invalidArgument),
    Case(
      name: "CANCEL with call id 0", opening: [],
      bytes: RawFrames.frame(Envelope(callID: 0, kind: .cancel).serializedBytes()),
      reason: "CALL_ID_ZERO", code: .invalidArgument),
    Case(
      name: "RESPONSE sent by a client", opening: [],
      bytes: RawFrames.frame(Envelope(callID: 3, kind: .response).serializedBytes()),
      reason: "UNEXPECTED_KIND", code: .invalidArgument),
    Case(
      name: "unknown kind", opening: [],
      bytes: RawFrames.frame(
        Envelope(callID: 3, kind: EnvelopeKind(rawValue: 42)).serializedBytes()),
      reason: "UNEXPECTED_KIND", code: .invalidArgument),
    Case(
      name: "PING payload over 64 bytes", opening: [],
      bytes: RawFrames.frame(
        Envelope(callID: 0, kind: .ping, payload: Array(repeating: 1, count: 65)).serializedBytes()),
      reason: "PING_PAYLOAD_TOO_LARGE", code: .invalidArgument),
    Case(
      name: "method path over 256 bytes", opening: [],
      bytes: RawFrames.frame(
        Raw.request(1, "echo:x", method: "/" + String(repeating: "m", count: 256))
          .serializedBytes()),
      reason: "METHOD_TOO_LONG", code: .invalidArgument),
    Case(
      name: "more than 64 metadata entries", opening: [],
      bytes: RawFrames.frame(
        Envelope(
          callID: 1, kind: .request, method: TestService.unary.path,
          metadata: (0..<65).map { Metadata(key: "k\($0)", value: "v") },
          payload: HealthCheckRequest(service: "echo:x").serializedBytes()
        ).serializedBytes()),
      reason: "METADATA_TOO_LARGE", code: .resourceExhausted),
    Case(
      name: "metadata over 8192 bytes", opening: [],
      bytes: RawFrames.frame(
        Envelope(
          callID: 1, kind: .request, method: TestService.unary.path,
          metadata: [Metadata(key: "note", value: String(repeating: "n", count: 8189))],
          payload: HealthCheckRequest(service: "echo:x").serializedBytes()
        ).serializedBytes()),
      reason: "METADATA_TOO_LARGE", code: .resourceExhausted),
  ]

  @Test("metadata and method paths at the limits are accepted")
  func limits_areInclusive() async throws {
    let entries = (0..<63).map { Metadata(key: "k\($0)", value: "v") }
    let used = entries.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    let last = Metadata(key: "note", value: String(repeating: "n", count: 8192 - used - 4))
    try await withTestServer { _, port, _ in
      let raw = try await RawConnection.connect(port: port)
      try await raw.send(
        Envelope(
          callID: 1, kind: .request, method: TestService.unary.path,
          metadata: entries + [last],
          payload: HealthCheckRequest(service: "echo:fine").serializedBytes()))
      #expect(Raw.text(try await raw.readEnvelope()) == "fine")
      try await raw.send(
        Raw.request(2, "echo:x", method: "/" + String(repeating: "m", count: 255)))
      #expect(try await raw.readEnvelope()?.status?.reason == "METHOD_NOT_FOUND")
      await raw.close()
    }
  }

  @Test("each violation gets GOAWAY naming it, closes that connection only", arguments: cases)
  func violation_getsGoAway(_ violation: Case) async throws {
    let configuration = ServerConfiguration(wire: WireConfiguration(maximumBodySize: Self.limit))
    try await withTestServer(configuration: configuration) { _, port, probe in
      try await withTestClient(port: port) { bystander in
        // Another client's stream runs the whole time and must not notice.
        let stream = try await bystander.serverStreaming(
          TestService.stream, .init(service: "forever"))
        var messages = stream.makeAsyncIterator()
        #expect(try await messages.next()?.service == "0")

        let offender = try await RawConnection.connect(port: port)
        for envelope in violation.opening { try await offender.send(envelope) }
        if !violation.opening.isEmpty { #expect(await probe.wait { $0.started == 2 }) }
        try await offender.send(violation.bytes)
        let seen = try await offender.readUntilClosed()
        let goAway = try #require(seen.last)
        #expect(goAway.kind == .goaway)
        #expect(goAway.callID == 0)
        #expect(goAway.status?.reason == violation.reason)
        #expect(goAway.status?.code == violation.code)
        #expect(goAway.status?.message.isEmpty == false)
        #expect(offender.isClosedByPeer)
        // Work the offender had open is stopped.
        if !violation.opening.isEmpty { #expect(await probe.wait { $0.cancelled == 1 }) }

        #expect(try await bystander.health.check().status == .serving)
        for _ in 0..<3 { #expect(try await messages.next() != nil) }
        let again = try await RawConnection.connect(port: port)
        try await again.send(Raw.request(1, "echo:fine"))
        #expect(Raw.text(try await again.readEnvelope()) == "fine")
        await again.close()
      }
    }
  }

  @Test("the GOAWAY text follows the locale of the connection's latest request")
  func violation_isLocalized() async throws {
    try await withTestServer { _, port, _ in
      let raw = try await RawConnection.connect(port: port)
      try await raw.send(Raw.request(1, "echo:x", locale: "zh-CN"))
      _ = try await raw.readEnvelope()
      try await raw.send([0x80])
      let goAway = try #require(try await raw.readUntilClosed().last)
      #expect(goAway.status?.reason == "RESERVED_FLAGS_SET")
      #expect(goAway.status?.message.contains("保留位") == true)
      await raw.close()
    }
  }
}
