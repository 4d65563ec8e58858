import BadmintonRPC
import NIOCore
import PropertyBased
import Testing

/// A service with one method that takes requests of at most `limit` bytes and answers the
/// length of the request's text.
private struct SizedService: RPCService {
  let limit: Int
  let probe: HandlerProbe

  var echo: MethodDescriptor<HealthCheckRequest, HealthCheckRequest> {
    Self.echo(limit: limit)
  }

  static func echo(limit: Int) -> MethodDescriptor<HealthCheckRequest, HealthCheckRequest> {
    MethodDescriptor(
      service: "test.v1.Sized", method: "Echo", kind: .unary, idempotent: false,
      requiresAuthentication: false, maximumRequestBytes: limit)
  }

  func registerMethods(in registry: inout HandlerRegistry) {
    let probe = self.probe
    registry.register(echo) { request, _ in
      probe.didStart()
      return HealthCheckRequest(service: "\(request.service.utf8.count)")
    }
  }
}

@Suite("Request frames are held to the largest request a method takes")
struct RequestFrameLimitTests {
  /// The largest body any REQUEST envelope within the server's limits can have besides its
  /// payload, worked out field by field in `FrameFormat.requestEnvelopeOverhead`.
  private static let overhead = 9061

  /// A frame header announcing `length` body bytes.
  private static func header(_ length: Int, flags: UInt8 = 0) -> [UInt8] {
    let length = UInt32(length)
    return [
      flags, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF),
      UInt8(length & 0xFF),
    ]
  }

  /// The longest text whose request is at most `limit` bytes.
  private static func text(fitting limit: Int) -> String {
    var text = String(repeating: "t", count: limit)
    while HealthCheckRequest(service: text).serializedSize > limit { text.removeLast() }
    return text
  }

  /// A REQUEST to `method` whose body is exactly `size` bytes: a text padded to fit.
  private static func request(_ callID: UInt64, method: String, bodySize size: Int) throws
    -> Envelope
  {
    var text = String(repeating: "p", count: size - method.utf8.count)
    var envelope = Envelope(callID: callID, kind: .request, method: method)
    repeat {
      text.removeLast()
      envelope.payload = HealthCheckRequest(service: text).serializedBytes()
    } while envelope.serializedBytes().count > size
    try #require(envelope.serializedBytes().count == size)
    return envelope
  }

  /// A REQUEST with every field at its longest: the largest call id, a 10-byte kind, the
  /// longest timeout and method path, and `entries` metadata entries sharing the whole metadata
  /// allowance, each entry's bytes given `split` percent to its key and the rest to its value.
  private static func largestRequest(payload: Int, entries: Int, split: Int) -> Envelope {
    var metadata: [Metadata] = []
    var left = FrameFormat.maximumMetadataBytes
    for index in 0..<entries {
      let share = index == entries - 1 ? left : min(left, (left / (entries - index)))
      let key = min(share, max(1, share * split / 100))
      metadata.append(
        Metadata(
          key: String(repeating: "k", count: key), value: String(repeating: "v", count: share - key)
        ))
      left -= share
    }
    return Envelope(
      callID: .max, kind: EnvelopeKind(rawValue: -1),
      method: String(repeating: "m", count: FrameFormat.maximumMethodBytes),
      timeoutMs: .max, metadata: metadata,
      payload: Array(repeating: 0xAB, count: payload))
  }

  @Test("the envelope overhead adds up the longest encoding of every field but the payload")
  func overhead_isTheFieldsLongestEncoding() {
    #expect(FrameFormat.requestEnvelopeOverhead == Self.overhead)
    #expect(FrameFormat.largestRequestBody(payload: 64 * 1024) == 64 * 1024 + Self.overhead)
  }

  @Test(
    "for any method limit, every request it accepts decodes, and a header announcing one byte more is refused before its body"
  )
  func anyLimit_acceptsItsRequestsAndRefusesMore() async throws {
    let cases = Generator { rng in
      let limit = Int.random(in: 0...(300 * 1024), using: &rng)
      return (
        limit: limit, payload: Int.random(in: 0...limit, using: &rng),
        entries: Int.random(in: 1...FrameFormat.maximumMetadataEntries, using: &rng),
        split: Int.random(in: 0...100, using: &rng)
      )
    }
    await propertyCheck(count: 60, input: cases) { sample in
      var registry = HandlerRegistry()
      SizedService(limit: sample.limit, probe: HandlerProbe()).registerMethods(in: &registry)
      #expect(registry.largestRequestBytes == sample.limit)
      let wireLimit = 256 * 1024
      let bodyLimit = registry.maximumRequestBodySize(within: wireLimit)
      // The oracle: the request's payload limit plus the envelope around it, at most the wire's.
      #expect(bodyLimit == min(wireLimit, sample.limit + Self.overhead))

      let decoder = FrameDecoder(
        configuration: WireConfiguration(maximumBodySize: bodyLimit), trust: nil)
      let envelope = Self.largestRequest(
        payload: sample.payload, entries: sample.entries, split: sample.split)
      let body = envelope.serializedBytes()
      if sample.payload + Self.overhead <= wireLimit {
        #expect(body.count <= bodyLimit)
        var frame = ByteBuffer(bytes: RawFrames.frame(body))
        let decoded = try decoder.decodeEnvelope(from: &frame)
        #expect(decoded == envelope)
      }

      var over = ByteBuffer(bytes: Self.header(bodyLimit + 1))
      let refused = #expect(throws: ProtocolViolation.self) {
        try decoder.decodeEnvelope(from: &over)
      }
      #expect(refused?.rpcError.reason == "FRAME_TOO_LARGE")
      var atLimit = ByteBuffer(bytes: Self.header(bodyLimit))
      let waiting = try decoder.decodeEnvelope(from: &atLimit)
      #expect(waiting == nil)
    }
  }

  @Test("a registry's largest request is its largest method's, and empty it is 0")
  func largestRequestBytes_followsTheMethods() {
    var registry = HandlerRegistry()
    #expect(registry.largestRequestBytes == 0)
    #expect(registry.maximumRequestBodySize(within: 1 << 20) == Self.overhead)
    SizedService(limit: 5000, probe: HandlerProbe()).registerMethods(in: &registry)
    registry.register(Health.check) { request, _ in HealthCheckResponse(status: .serving) }
    #expect(registry.largestRequestBytes == 5000)
    // Never more than the wire's own limit.
    #expect(registry.maximumRequestBodySize(within: 6000) == 6000)
  }

  @Test(
    "a server takes frames as large as its largest method's requests, refuses larger ones from their header, and still refuses a request over its method's limit",
    arguments: [1024, 40_000])
  func server_holdsFramesToItsMethods(limit: Int) async throws {
    try await withTestServer(services: { [SizedService(limit: limit, probe: $0)] }) {
      server, port, probe in
      let bodyLimit = limit + Self.overhead
      #expect(server.maximumRequestBodySize == bodyLimit)
      let path = SizedService.echo(limit: limit).path

      // A request the method takes whole is answered.
      let raw = try await RawConnection.connect(port: port)
      let text = Self.text(fitting: limit)
      try await raw.send(
        Envelope(
          callID: 1, kind: .request, method: path,
          payload: HealthCheckRequest(service: text).serializedBytes()))
      #expect(Raw.text(try await raw.readEnvelope()) == "\(text.utf8.count)")

      // A frame of exactly the limit is read whole; its payload is over the method's limit.
      try await raw.send(Self.request(2, method: path, bodySize: bodyLimit))
      let refused = try #require(try await raw.readEnvelope())
      #expect(refused.callID == 2)
      #expect(refused.status?.reason == "REQUEST_TOO_LARGE")
      #expect(probe.started == 1)

      // One byte more is refused from the header alone: no body follows it.
      try await raw.send(Self.header(bodyLimit + 1))
      let goAway = try #require(try await raw.readUntilClosed().last)
      #expect(goAway.kind == .goaway)
      #expect(goAway.status?.reason == "FRAME_TOO_LARGE")
      #expect(goAway.status?.code == .resourceExhausted)
      #expect(raw.isClosedByPeer)
    }
  }

  @Test("a server with a larger method accepts the frames a server with smaller ones refuses")
  func largerMethod_acceptsLargerFrames() async throws {
    let text = String(repeating: "u", count: 30_000)
    let request = Envelope(
      callID: 1, kind: .request, method: SizedService.echo(limit: 1024).path,
      payload: HealthCheckRequest(service: text).serializedBytes())
    try await withTestServer(services: { [SizedService(limit: 1024, probe: $0)] }) { _, port, _ in
      let raw = try await RawConnection.connect(port: port)
      try await raw.send(request)
      let seen = try await raw.readUntilClosed()
      #expect(seen.last?.status?.reason == "FRAME_TOO_LARGE")
    }
    try await withTestServer(services: { [SizedService(limit: 40_000, probe: $0)] }) {
      _, port, _ in
      let raw = try await RawConnection.connect(port: port)
      try await raw.send(request)
      #expect(Raw.text(try await raw.readEnvelope()) == "30000")
      await raw.close()
    }
  }

  @Test(
    "a compressed frame stating a content size over the limit is refused before it is decompressed"
  )
  func compressedOverLimit_isRefused() async throws {
    try await withTestServer(services: { [SizedService(limit: 1024, probe: $0)] }) {
      server, port, probe in
      let bodyLimit = server.maximumRequestBodySize
      let path = SizedService.echo(limit: 1024).path
      let raw = try await RawConnection.connect(port: port)
      // Exactly the limit decompressed: read, then refused by the method's own limit.
      try await raw.send(Self.request(1, method: path, bodySize: bodyLimit), compressed: true)
      #expect(try await raw.readEnvelope()?.status?.reason == "REQUEST_TOO_LARGE")
      // One byte more: a frame of a few dozen bytes stating it is refused.
      let over = try Self.request(2, method: path, bodySize: bodyLimit + 1).serializedBytes()
      let frame = RawFrames.frame(over, compressed: true)
      #expect(frame.count < 1024)
      try await raw.send(frame)
      let goAway = try #require(try await raw.readUntilClosed().last)
      #expect(goAway.status?.reason == "DECOMPRESSED_BODY_TOO_LARGE")
      #expect(probe.started == 0)
    }
  }

  @Test(
    "the client refuses a request over its method's limit unsent, with the server's error, and its connection goes on"
  )
  func client_refusesOversizeRequestLocally() async throws {
    let limit = 1024
    let method = SizedService.echo(limit: limit)
    try await withTestServer(services: { [SizedService(limit: limit, probe: $0)] }) {
      server, port, probe in
      try await withTestClient(port: port) { client in
        let big = HealthCheckRequest(service: String(repeating: "b", count: limit))
        let local = try #require(await rpcError { _ = try await client.unary(method, big) })
        #expect(local == RPCError.requestOverMethodLimit(limit: limit))
        // Nothing was sent: not even a connection was made for it.
        #expect(server.openConnections == 0)

        let fits = HealthCheckRequest(service: String(repeating: "f", count: limit - 3))
        #expect(try await client.unary(method, fits).service == "\(limit - 3)")
        #expect(server.openConnections == 1)
        let again = try #require(await rpcError { _ = try await client.unary(method, big) })
        #expect(again == local)
        #expect(try await client.unary(method, fits).service == "\(limit - 3)")
        #expect(server.openConnections == 1)
        #expect(probe.started == 2)

        // The server gives the same error for the same request sent by path.
        let remote = try #require(
          await rpcError {
            _ = try await client.unary(
              path: method.path, payload: big.serializedBytes(), idempotent: false)
          })
        for locale in RPCLocale.allCases {
          #expect(remote.status(in: locale) == local.status(in: .en))
        }
        #expect(server.openConnections == 1)
      }
    }
  }
}
