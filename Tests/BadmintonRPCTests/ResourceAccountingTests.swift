import BadmintonRPC
import Logging
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

/// The header of a plain frame announcing `length` body bytes.
private func header(_ length: Int, flags: UInt8 = 0) -> [UInt8] {
  [
    flags, UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF),
    UInt8(length & 0xFF),
  ]
}

@Suite("Request memory accounting in the frame decoder")
struct FrameBudgetTests {
  private let configuration = WireConfiguration(maximumBodySize: 1 << 20)

  @Test("a large frame still arriving is charged when its header arrives; a second is refused")
  func partialFrames_areCharged() throws {
    let budget = RequestMemoryBudget(limit: 300_000)
    let first = FrameDecoder(configuration: configuration, budget: budget)
    let second = FrameDecoder(configuration: configuration, budget: budget)
    let body = Envelope(callID: 1, kind: .ping, payload: Array(repeating: 7, count: 100_000))
      .serializedBytes()
    var arriving = ByteBuffer(bytes: header(body.count) + body.prefix(1000))
    #expect(try first.decodeEnvelope(from: &arriving) == nil)
    // Charged at the capacity the buffer grows to, before the body is there.
    #expect(first.chargedBytes == 131_072)
    #expect(budget.inUse == 131_072)

    var other = ByteBuffer(bytes: header(200_000))
    #expect(throws: ProtocolViolation.serverBusy(bytes: 262_144)) {
      try second.decodeEnvelope(from: &other)
    }
    #expect(budget.inUse == 131_072)

    arriving.writeBytes(body.dropFirst(1000))
    #expect(try first.decodeEnvelope(from: &arriving)?.payload.count == 100_000)
    #expect(budget.inUse == 0)
  }

  @Test("small frames are never charged, so CANCEL and PING get through a full budget")
  func smallFrames_areNotCharged() throws {
    let budget = RequestMemoryBudget(limit: 0)
    let decoder = FrameDecoder(configuration: configuration, budget: budget)
    let ping = Envelope(callID: 1, kind: .ping, payload: [1, 2, 3]).serializedBytes()
    var buffer = ByteBuffer(bytes: RawFrames.frame(ping))
    #expect(try decoder.decodeEnvelope(from: &buffer)?.kind == .ping)
  }

  @Test("a compressed body is charged for its output and context before it is decompressed")
  func decompression_isCharged() throws {
    let body = Envelope(callID: 1, kind: .ping, payload: Array(repeating: 0, count: 500_000))
      .serializedBytes()
    let frame = RawFrames.frame(body, compressed: true)
    #expect(frame.count < 4096)
    // The output buffer (NIO sizes buffers in powers of two) and the zstd context.
    let needed = 524_288 + Zstd.Decompressor.contextSize
    #expect(body.count > 262_144 && body.count <= 524_288)

    let tight = RequestMemoryBudget(limit: needed - 1)
    var refused = ByteBuffer(bytes: frame)
    #expect(throws: ProtocolViolation.serverBusy(bytes: needed)) {
      try FrameDecoder(configuration: configuration, budget: tight).decodeEnvelope(from: &refused)
    }
    #expect(tight.inUse == 0)

    let enough = RequestMemoryBudget(limit: needed)
    var accepted = ByteBuffer(bytes: frame)
    let decoded = try FrameDecoder(configuration: configuration, budget: enough)
      .decodeEnvelope(from: &accepted)
    #expect(decoded?.payload.count == 500_000)
    #expect(enough.inUse == 0)
  }

  @Test("a compressed body that does not state its size is refused before decompressing")
  func unstatedSize_isRefused() {
    let body = Envelope(callID: 1, kind: .ping, payload: Array(repeating: 0, count: 5000))
      .serializedBytes()
    let unstated = RawFrames.zstdCompress(body, statesSize: false)
    var buffer = ByteBuffer(bytes: RawFrames.frame(unstated, flags: 1))
    #expect(throws: ProtocolViolation.compressedSizeUnstated) {
      try FrameDecoder(configuration: configuration).decodeEnvelope(from: &buffer)
    }
  }

  @Test("a frame cut off by the connection's end gives its charge back")
  func removedDecoder_releasesCharge() throws {
    let budget = RequestMemoryBudget(limit: 1 << 20)
    let channel = EmbeddedChannel(
      handler: ByteToMessageHandler(FrameDecoder(configuration: configuration, budget: budget)))
    try channel.writeInbound(ByteBuffer(bytes: header(500_000) + [0x08, 0x01]))
    #expect(budget.inUse == 524_288)
    _ = try? channel.finish()
    #expect(budget.inUse == 0)
  }

  @Test("zstd decompression keeps no context between frames: each frame's output is its own")
  func decompressor_isStatelessBetweenFrames() throws {
    let decompressor = Zstd.Decompressor(maximumOutput: 1 << 20)
    let large = RawFrames.zstdCompress(Array(repeating: 3, count: 600_000))
    let small = RawFrames.zstdCompress(Array(repeating: 4, count: 100))
    let first = try large.withUnsafeBytes {
      try decompressor.decompress($0, limit: 1 << 20, allocator: ByteBufferAllocator())
    }
    #expect(first.capacity == 1_048_576)  // 600,000 in a power-of-two buffer
    let second = try small.withUnsafeBytes {
      try decompressor.decompress($0, limit: 1 << 20, allocator: ByteBufferAllocator())
    }
    // The output is sized by the frame's stated size alone, not by earlier frames or the input.
    #expect(second.capacity == 128)
    #expect(Array(buffer: second) == Array(repeating: 4, count: 100))
  }
}

/// Records what the channel's pipeline caught.
private final class ErrorRecorder: ChannelInboundHandler, @unchecked Sendable {
  typealias InboundIn = Envelope
  var errors: [any Error] = []
  var envelopes: [Envelope] = []

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    envelopes.append(unwrapInboundIn(data))
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) { errors.append(error) }
}

@Suite("Frame timeout")
struct FrameTimeoutTests {
  private func channel() throws -> (EmbeddedChannel, ErrorRecorder) {
    let recorder = ErrorRecorder()
    let channel = EmbeddedChannel()
    try channel.pipeline.syncOperations.addHandlers([
      ByteToMessageHandler(
        FrameDecoder(configuration: WireConfiguration(), frameTimeout: .seconds(10))),
      recorder,
    ])
    return (channel, recorder)
  }

  @Test("a frame started but not finished within the frame timeout is a violation")
  func slowFrame_timesOut() throws {
    let (channel, recorder) = try channel()
    try channel.writeInbound(ByteBuffer(bytes: header(1000) + [0x08]))
    channel.embeddedEventLoop.advanceTime(by: .seconds(9))
    #expect(recorder.errors.isEmpty)
    // More bytes of the same frame do not restart its clock.
    try channel.writeInbound(ByteBuffer(bytes: [0x01]))
    channel.embeddedEventLoop.advanceTime(by: .seconds(1))
    let violation = try #require(recorder.errors.first as? ProtocolViolation)
    #expect(violation.rpcError.reason == "FRAME_TIMEOUT")
    #expect(violation.rpcError.code == .deadlineExceeded)
    _ = try? channel.finish()
  }

  @Test("frames that finish in time, one after another, never time out")
  func frameInTime_doesNotTimeOut() throws {
    let (channel, recorder) = try channel()
    let ping = RawFrames.frame(Envelope(callID: 0, kind: .ping, payload: [1]).serializedBytes())
    for _ in 0..<5 {
      try channel.writeInbound(ByteBuffer(bytes: Array(ping.prefix(3))))
      channel.embeddedEventLoop.advanceTime(by: .seconds(9))
      try channel.writeInbound(ByteBuffer(bytes: Array(ping.dropFirst(3))))
      channel.embeddedEventLoop.advanceTime(by: .seconds(9))
    }
    #expect(recorder.errors.isEmpty)
    #expect(recorder.envelopes.count == 5)
    _ = try? channel.finish()
  }
}

/// A gate a handler waits at without regard to cancellation, opened by the test.
private final class Gate: Sendable {
  private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>(
    (false, []))

  func wait() async {
    await withCheckedContinuation { continuation in
      let resumeNow = state.withLock { state in
        if state.open { return true }
        state.waiters.append(continuation)
        return false
      }
      if resumeNow { continuation.resume() }
    }
  }

  func open() {
    let waiters = state.withLock { state in
      state.open = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}

/// Methods with a small request limit and a handler that ignores cancellation.
private struct LimitedService: RPCService {
  static let small = MethodDescriptor<HealthCheckRequest, HealthCheckRequest>(
    service: "test.v1.Limited", method: "Small", kind: .unary, idempotent: false,
    requiresAuthentication: false, maximumRequestBytes: 1024)
  static let stubborn = MethodDescriptor<HealthCheckRequest, HealthCheckRequest>(
    service: "test.v1.Limited", method: "Stubborn", kind: .unary, idempotent: false,
    requiresAuthentication: false)

  let probe: HandlerProbe
  let gate: Gate

  func registerMethods(in registry: inout HandlerRegistry) {
    let probe = self.probe
    let gate = self.gate
    registry.register(Self.small) { request, _ in
      probe.didStart()
      return request
    }
    registry.register(Self.stubborn) { request, _ in
      probe.didStart()
      await gate.wait()
      probe.didFinish()
      return request
    }
  }
}

@Suite("Per-method request limits and handler accounting")
struct MethodLimitTests {
  @Test("a compressed request over its method's limit is refused before the handler runs")
  func oversizeRequest_isRefusedBeforeHandler() async throws {
    let gate = Gate()
    try await withTestServer(services: { [LimitedService(probe: $0, gate: gate)] }) {
      _, port, probe in
      let raw = try await RawConnection.connect(port: port)
      // Over the method's limit, within what a peer without a session may send.
      let big = String(repeating: "n", count: 60_000)
      try await raw.send(
        Raw.request(1, big, method: LimitedService.small.path), compressed: true)
      let refused = try #require(try await raw.readEnvelope())
      #expect(refused.status?.code == .resourceExhausted)
      #expect(refused.status?.reason == "REQUEST_TOO_LARGE")
      #expect(probe.started == 0)
      // At the limit it goes through.
      let fits = String(repeating: "n", count: 1000)
      try await raw.send(Raw.request(2, fits, method: LimitedService.small.path))
      #expect(Raw.text(try await raw.readEnvelope()) == fits)
      await raw.close()
    }
  }

  @Test("a handler past its deadline that has not stopped still holds its place")
  func expiredHandler_holdsItsSlot() async throws {
    let gate = Gate()
    try await withTestServer(
      configuration: ServerConfiguration(maximumConcurrentCallsPerConnection: 1),
      services: { [LimitedService(probe: $0, gate: gate)] }
    ) { _, port, probe in
      let raw = try await RawConnection.connect(port: port)
      try await raw.send(
        Raw.request(1, "held", method: LimitedService.stubborn.path, timeoutMs: 1))
      #expect(try await raw.readEnvelope()?.status?.reason == "DEADLINE_EXCEEDED")
      #expect(await probe.wait { $0.started == 1 })
      try await raw.send(Raw.request(2, "next", method: LimitedService.small.path))
      #expect(try await raw.readEnvelope()?.status?.reason == "TOO_MANY_CONCURRENT_CALLS")
      gate.open()
      await raw.close()
    }
  }

  @Test("methods take 64 KiB requests unless they name another limit")
  func defaultLimit_is64KiB() {
    #expect(TestService.unary.maximumRequestBytes == 65_536)
    #expect(LimitedService.small.maximumRequestBytes == 1024)
  }

  @Test("a cancelled handler that has not stopped still holds its place in the call limit")
  func cancelledHandler_holdsItsSlot() async throws {
    let gate = Gate()
    try await withTestServer(
      configuration: ServerConfiguration(maximumConcurrentCallsPerConnection: 1),
      services: { [LimitedService(probe: $0, gate: gate)] }
    ) { _, port, probe in
      let raw = try await RawConnection.connect(port: port)
      try await raw.send(Raw.request(1, "held", method: LimitedService.stubborn.path))
      #expect(await probe.wait { $0.started == 1 })
      try await raw.send(Envelope(callID: 1, kind: .cancel))
      #expect(try await raw.readEnvelope()?.status?.reason == "CANCELLED")
      // The cancelled handler is still running: no new call may start.
      try await raw.send(Raw.request(2, "next", method: LimitedService.small.path))
      let refused = try #require(try await raw.readEnvelope())
      #expect(refused.callID == 2)
      #expect(refused.status?.reason == "TOO_MANY_CONCURRENT_CALLS")
      // Once it ends, its place is free again (the end reaches the connection's loop soon after).
      gate.open()
      #expect(await probe.wait { $0.finished == 1 })
      var callID: UInt64 = 3
      var answered: Envelope?
      while callID < 200 {
        try await raw.send(Raw.request(callID, "next", method: LimitedService.small.path))
        answered = try await raw.readEnvelope()
        if answered?.status?.code == .ok { break }
        callID += 1
      }
      #expect(Raw.text(answered) == "next")
      await raw.close()
    }
  }
}

/// Accepts the one token `good`.
private struct OneTokenAuthenticator: Authenticator {
  func authenticate(bearerToken: String) async throws -> Principal? {
    bearerToken == "good" ? Principal(userID: 1, isAdministrator: false) : nil
  }
}

/// Accepts the token "good" until it is revoked.
private final class RevocableAuthenticator: Authenticator, Sendable {
  private let revoked = Atomic<Bool>(false)

  func revoke() { revoked.store(true, ordering: .relaxed) }

  func authenticate(bearerToken: String) async throws -> Principal? {
    bearerToken == "good" && !revoked.load(ordering: .relaxed)
      ? Principal(userID: 1, isAdministrator: false) : nil
  }
}

/// An authenticated method that takes large requests and answers their size.
private struct UploadService: RPCService {
  static let upload = MethodDescriptor<HealthCheckRequest, HealthCheckRequest>(
    service: "test.v1.Upload", method: "Upload", kind: .unary, idempotent: false,
    requiresAuthentication: true, maximumRequestBytes: 1 << 20)

  /// Needs no session; sends one message, then holds its request until the call ends.
  static let hold = MethodDescriptor<HealthCheckRequest, HealthCheckRequest>(
    service: "test.v1.Upload", method: "Hold", kind: .serverStreaming, idempotent: true,
    requiresAuthentication: false)

  func registerMethods(in registry: inout HandlerRegistry) {
    registry.register(Self.upload) { request, _ in
      HealthCheckRequest(service: "\(request.service.utf8.count)")
    }
    registry.register(Self.hold) { request, _, writer in
      try await writer.write(HealthCheckRequest(service: "held"))
      // Ends only when the call is cancelled.
      let (stream, continuation) = AsyncStream<Int>.makeStream()
      for await _ in stream {}
      continuation.finish()
    }
  }
}

@Suite("Large frames need a session")
struct LargeFrameSessionTests {
  private let configuration = WireConfiguration(maximumBodySize: 1 << 20)

  @Test(
    "a frame over 64 KiB, header included, is refused from its header until a call has been authenticated"
  )
  func largeFrame_needsSession() throws {
    let trust = ConnectionTrust()
    let decoder = FrameDecoder(configuration: configuration, trust: trust)
    // 5 header bytes + 65,531 body bytes: 64 KiB exactly.
    var small = ByteBuffer(bytes: header(65_531))
    #expect(try decoder.decodeEnvelope(from: &small) == nil)
    var large = ByteBuffer(bytes: header(65_532))
    let refused = #expect(throws: ProtocolViolation.self) {
      try decoder.decodeEnvelope(from: &large)
    }
    #expect(refused?.rpcError.reason == "LARGE_FRAME_NEEDS_SESSION")
    #expect(refused?.rpcError.code == .unauthenticated)
    trust.sessionAuthenticated = true
    #expect(try decoder.decodeEnvelope(from: &large) == nil)
  }

  @Test(
    "a compressed body that decompresses past 64 KiB is refused before decompressing until a call has been authenticated"
  )
  func largeDecompressedBody_needsSession() throws {
    let trust = ConnectionTrust()
    let budget = RequestMemoryBudget(limit: 1 << 30)
    let decoder = FrameDecoder(configuration: configuration, budget: budget, trust: trust)
    let fits = Envelope(callID: 1, kind: .ping).serializedBytes()
    // 5 header bytes + 65,531 body bytes: 64 KiB, the most a plain frame may be.
    let bodyLimit = 65_531
    let padding = bodyLimit - fits.count - 4
    let atLimit = Envelope(callID: 1, kind: .ping, payload: Array(repeating: 0, count: padding))
      .serializedBytes()
    #expect(atLimit.count == bodyLimit)
    var accepted = ByteBuffer(bytes: RawFrames.frame(atLimit, compressed: true))
    #expect(try decoder.decodeEnvelope(from: &accepted)?.payload.count == padding)

    let over = Envelope(callID: 1, kind: .ping, payload: Array(repeating: 0, count: padding + 1))
      .serializedBytes()
    let frame = RawFrames.frame(over, compressed: true)
    #expect(frame.count < 1024)
    var refused = ByteBuffer(bytes: frame)
    let violation = #expect(throws: ProtocolViolation.self) {
      try decoder.decodeEnvelope(from: &refused)
    }
    #expect(violation?.rpcError.reason == "LARGE_FRAME_NEEDS_SESSION")
    #expect(budget.inUse == 0)
    trust.sessionAuthenticated = true
    var again = ByteBuffer(bytes: frame)
    #expect(try decoder.decodeEnvelope(from: &again)?.payload.count == padding + 1)
  }

  /// An envelope followed by `count` empty metadata entries (field 5, length 0).
  private func envelope(emptyMetadataEntries count: Int) -> [UInt8] {
    Envelope(callID: 1, kind: .request, method: "/test.v1.Echo/Unary").serializedBytes()
      + Array([[UInt8]](repeating: [0x2A, 0x00], count: count).joined())
  }

  @Test(
    "metadata entries are counted on the wire before protobuf-c unpacks them, with or without a session"
  )
  func metadataEntries_areCountedBeforeUnpacking() throws {
    let trust = ConnectionTrust()
    trust.sessionAuthenticated = true
    let decoder = FrameDecoder(configuration: configuration, trust: trust)
    let limit = FrameFormat.maximumMetadataEntries
    var fits = ByteBuffer(bytes: RawFrames.frame(envelope(emptyMetadataEntries: limit)))
    #expect(try decoder.decodeEnvelope(from: &fits)?.metadata.count == limit)

    // Half a million entries in a few hundred bytes of zstd.
    let many = envelope(emptyMetadataEntries: 400_000)
    let frame = RawFrames.frame(many, compressed: true)
    #expect(frame.count < 1024)
    var refused = ByteBuffer(bytes: frame)
    let violation = #expect(throws: ProtocolViolation.self) {
      try decoder.decodeEnvelope(from: &refused)
    }
    #expect(violation?.rpcError.reason == "METADATA_TOO_LARGE")
    var justOver = ByteBuffer(bytes: RawFrames.frame(envelope(emptyMetadataEntries: limit + 1)))
    #expect(throws: ProtocolViolation.metadataTooLarge(entries: limit + 1, bytes: 0)) {
      try decoder.decodeEnvelope(from: &justOver)
    }
  }

  private func withUploadServer(
    authenticator: any Authenticator = OneTokenAuthenticator(), _ body: (Int) async throws -> Void
  ) async throws {
    var logger = Logger(label: "test.server")
    logger.logLevel = .critical
    let server = RPCServer(
      configuration: ServerConfiguration(port: 0), services: [UploadService()],
      authenticator: authenticator, logger: logger)
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await server.run() }
      let port = try await server.localAddress().port!
      do {
        try await body(port)
      } catch {
        group.cancelAll()
        throw error
      }
      group.cancelAll()
    }
  }

  @Test("a peer without a session that sends a large frame gets GOAWAY and is closed")
  func unauthenticatedLargeFrame_getsGoAway() async throws {
    try await withUploadServer { port in
      let raw = try await RawConnection.connect(port: port)
      // Sent plain: the frame is as large as the request.
      let large = String(repeating: "a", count: 100_000)
      try await raw.send(Raw.request(1, large, method: UploadService.upload.path))
      let seen = try await raw.readUntilClosed()
      #expect(seen.last?.kind == .goaway)
      #expect(seen.last?.status?.reason == "LARGE_FRAME_NEEDS_SESSION")
    }
  }

  @Test(
    "without a session, a connection's open calls hold at most 64 KiB of requests; beyond, SERVER_BUSY with a retry hint"
  )
  func sessionlessCalls_holdBoundedRequests() async throws {
    try await withUploadServer { port in
      let raw = try await RawConnection.connect(port: port)
      let half = String(repeating: "h", count: 40_000)
      try await raw.send(Raw.request(1, half, method: UploadService.hold.path))
      #expect(Raw.text(try await raw.readEnvelope()) == "held")
      // A second such request would make the connection's calls hold more than 64 KiB.
      try await raw.send(Raw.request(2, half, method: UploadService.hold.path))
      let refused = try #require(try await raw.readEnvelope())
      #expect(refused.callID == 2 && refused.kind == .streamEnd)
      #expect(refused.status?.reason == "SERVER_BUSY")
      #expect(refused.status?.retryAfterMs == 1000)
      // Once a call has passed authentication, the server-wide budget alone applies.
      var check = Raw.request(3, "", method: Health.checkSession.path)
      check.metadata = [Metadata(key: "authorization", value: "Bearer good")]
      try await raw.send(check)
      #expect(try await raw.readEnvelope()?.status?.code == .ok)
      try await raw.send(Raw.request(4, half, method: UploadService.hold.path))
      #expect(Raw.text(try await raw.readEnvelope()) == "held")
      await raw.close()
    }
  }

  @Test("the built-in Health and Reflection methods take requests of at most 1 KiB")
  func builtInMethods_takeSmallRequests() async throws {
    for method in [Health.check, Health.watch, Health.checkSession] {
      #expect(method.maximumRequestBytes == 1024)
    }
    #expect(Reflection.listMethods.maximumRequestBytes == 1024)
    try await withUploadServer { port in
      let raw = try await RawConnection.connect(port: port)
      let long = String(repeating: "w", count: 2000)
      try await raw.send(Raw.request(1, long, method: Health.watch.path))
      let refused = try #require(try await raw.readEnvelope())
      #expect(refused.status?.reason == "REQUEST_TOO_LARGE")
      await raw.close()
    }
  }

  @Test("a connection whose session is found invalid loses the right to large frames")
  func invalidSession_endsTrust() async throws {
    let authenticator = RevocableAuthenticator()
    try await withUploadServer(authenticator: authenticator) { port in
      let raw = try await RawConnection.connect(port: port)
      var check = Raw.request(1, "", method: Health.checkSession.path)
      check.metadata = [Metadata(key: "authorization", value: "Bearer good")]
      try await raw.send(check)
      #expect(try await raw.readEnvelope()?.status?.code == .ok)
      // The session ends (logged out); the next authenticated call on the connection fails.
      authenticator.revoke()
      check.callID = 2
      try await raw.send(check)
      #expect(try await raw.readEnvelope()?.status?.reason == "SESSION_INVALID")
      var upload = Raw.request(
        3, String(repeating: "a", count: 100_000), method: UploadService.upload.path)
      upload.metadata = check.metadata
      try await raw.send(upload)
      let seen = try await raw.readUntilClosed()
      #expect(seen.last?.kind == .goaway)
      #expect(seen.last?.status?.reason == "LARGE_FRAME_NEEDS_SESSION")
    }
  }

  @Test("the reference client checks its session first, then sends the large request")
  func client_sendsLargeRequestTransparently() async throws {
    try await withUploadServer { port in
      try await withTestClient(port: port) { client in
        var rng = SystemRandomNumberGenerator()
        // Incompressible, so that the frame really is over 64 KiB.
        let text = String(
          (0..<300_000).map { _ in
            Character(UnicodeScalar(UInt8.random(in: 0x21...0x7E, using: &rng)))
          })
        let options = CallOptions(bearerToken: "good")
        let answer = try await client.unary(
          UploadService.upload, HealthCheckRequest(service: text), options: options)
        #expect(answer.service == "300000")
        // Once checked, the connection takes large requests without another check.
        let again = try await client.unary(
          UploadService.upload, HealthCheckRequest(service: text), options: options)
        #expect(again.service == "300000")
        // A bad token fails the call with the session's own error.
        let error = await rpcError {
          _ = try await client.unary(
            UploadService.upload, HealthCheckRequest(service: text),
            options: CallOptions(bearerToken: "bad"))
        }
        #expect(error?.reason == "SESSION_INVALID")
        // That cost the connection its session: the client checks the session again first.
        let after = try await client.unary(
          UploadService.upload, HealthCheckRequest(service: text), options: options)
        #expect(after.service == "300000")
      }
    }
  }
}

/// A stream whose handler goes on writing after its call has ended, and a unary call that
/// waits; both ignore cancellation.
private struct LingeringService: RPCService {
  static let stream = MethodDescriptor<HealthCheckRequest, HealthCheckRequest>(
    service: "test.v1.Lingering", method: "Stream", kind: .serverStreaming, idempotent: true,
    requiresAuthentication: false)
  static let unary = MethodDescriptor<HealthCheckRequest, HealthCheckRequest>(
    service: "test.v1.Lingering", method: "Unary", kind: .unary, idempotent: false,
    requiresAuthentication: false)

  let probe: HandlerProbe
  let streamGate: Gate
  let unaryGate: Gate

  func registerMethods(in registry: inout HandlerRegistry) {
    let probe = self.probe
    let streamGate = self.streamGate
    let unaryGate = self.unaryGate
    registry.register(Self.stream) { _, _, writer in
      try await writer.write(HealthCheckRequest(service: "first"))
      await streamGate.wait()
      // The call has ended by now; these writes must go nowhere.
      for _ in 0..<3 { try? await writer.write(HealthCheckRequest(service: "stale")) }
      probe.didFinish()
    }
    registry.register(Self.unary) { _, _ in
      probe.didStart()
      await unaryGate.wait()
      return HealthCheckRequest(service: "new")
    }
  }
}

@Suite("Calls that reuse an id")
struct CallIDReuseTests {
  @Test(
    "a cancelled stream's handler that keeps writing never writes into a later call with its id")
  func stoppedStream_neverWritesIntoLaterCall() async throws {
    let streamGate = Gate()
    let unaryGate = Gate()
    try await withTestServer(services: {
      [LingeringService(probe: $0, streamGate: streamGate, unaryGate: unaryGate)]
    }) { _, port, probe in
      let raw = try await RawConnection.connect(port: port)
      try await raw.send(Raw.request(1, "", method: LingeringService.stream.path))
      #expect(Raw.text(try await raw.readEnvelope()) == "first")
      try await raw.send(Envelope(callID: 1, kind: .cancel))
      #expect(try await raw.readEnvelope()?.status?.reason == "CANCELLED")
      // The id is free again: a unary call takes it while the old handler still runs.
      try await raw.send(Raw.request(1, "", method: LingeringService.unary.path))
      #expect(await probe.wait { $0.started == 1 })
      streamGate.open()
      #expect(await probe.wait { $0.finished == 1 })
      unaryGate.open()
      let next = try #require(try await raw.readEnvelope())
      #expect(next.kind == .response)
      #expect(Raw.text(next) == "new")
      await raw.close()
    }
  }
}
