import Logging
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import BadmintonRPC

/// A service whose methods are served inline. Its messages reuse `HealthCheckRequest`, whose one
/// string field carries a command: `echo:TEXT` answers TEXT, `fail` throws an `RPCError`,
/// `crash` throws an error that is not one, `caller` answers the authenticated caller's id.
private struct InlineService: RPCService {
  static let name = "test.v1.Inline"
  static let open = MethodDescriptor<HealthCheckRequest, HealthCheckRequest>(
    service: name, method: "Open", kind: .unary, idempotent: true, requiresAuthentication: false)
  static let guarded = MethodDescriptor<HealthCheckRequest, HealthCheckRequest>(
    service: name, method: "Guarded", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// How many times the handler ran.
  final class Runs: Sendable {
    let count = Mutex(0)
  }

  let ran = Runs()

  struct NotAnRPCError: Error {}

  func registerMethods(in registry: inout HandlerRegistry) {
    let handler: @Sendable (HealthCheckRequest, ServerContext) throws -> HealthCheckRequest = {
      [self] request, context in
      ran.count.withLock { $0 += 1 }
      let command = request.service
      switch command {
      case "fail":
        throw RPCError(
          code: .invalidArgument, reason: "TEST_FAILURE",
          message: LocalizedText(en: "test failure", zhCN: "测试失败"))
      case "crash":
        throw NotAnRPCError()
      case "caller":
        return HealthCheckRequest(service: "\(try context.requirePrincipal().userID)")
      default:
        return HealthCheckRequest(service: String(command.dropFirst("echo:".count)))
      }
    }
    registry.register(Self.open, inline: handler)
    registry.register(Self.guarded, inline: handler)
  }
}

/// Knows one token, `good`, of player 7; answers without waiting.
private struct MemoryAuthenticator: ImmediateAuthenticator {
  func authenticate(bearerToken: String) async throws -> Principal? {
    authenticateNow(bearerToken: bearerToken)
  }

  func authenticateNow(bearerToken: String) -> Principal? {
    bearerToken == "good" ? Principal(userID: 7, isAdministrator: false) : nil
  }
}

/// The same answers as `MemoryAuthenticator`, but only by waiting.
private struct WaitingAuthenticator: Authenticator {
  func authenticate(bearerToken: String) async throws -> Principal? {
    bearerToken == "good" ? Principal(userID: 7, isAdministrator: false) : nil
  }
}

/// An embedded connection to a server of `InlineService`, and how many times its handler ran.
private func inlineConnection(
  authenticator: (any Authenticator)? = MemoryAuthenticator(),
  configuration: ServerConfiguration = ServerConfiguration()
) throws -> (connection: EmbeddedServerConnection, ran: @Sendable () -> Int) {
  let service = InlineService()
  var logger = Logger(label: "test.server")
  logger.logLevel = .critical
  let server = RPCServer(
    configuration: configuration, services: [service], authenticator: authenticator,
    logger: logger)
  let ran = service.ran
  return (try EmbeddedServerConnection(server: server), { ran.count.withLock { $0 } })
}

private func call(
  _ callID: UInt64, _ command: String, method: String = InlineService.open.path,
  token: String? = nil, timeoutMs: UInt32 = 0
) -> Envelope {
  Envelope(
    callID: callID, kind: .request, method: method, timeoutMs: timeoutMs,
    metadata: token.map { [Metadata(key: "authorization", value: "Bearer \($0)")] } ?? [],
    payload: HealthCheckRequest(service: command).serializedBytes())
}

private func frames(_ envelopes: Envelope...) -> ByteBuffer {
  var buffer = ByteBuffer()
  for envelope in envelopes {
    buffer.writeBytes(RawFrames.frame(envelope.serializedBytes()))
  }
  return buffer
}

@Suite("Methods served inline on the connection's event loop")
struct InlineHandlerTests {
  @Test("an inline handler runs as its request is read, before the loop runs any task")
  func inline_runsAsRead() throws {
    let (connection, ran) = try inlineConnection()
    defer { try? connection.finish() }
    try connection.channel.writeInbound(frames(call(1, "echo:now")))
    #expect(ran() == 1)
    let answers = try connection.sent()
    #expect(answers.map(\.callID) == [1])
    #expect(answers.first?.kind == .response)
    #expect(answers.first?.status?.code == .ok)
    #expect(Raw.text(answers.first) == "now")
  }

  @Test("a CANCEL read with an inline call's request ends it CANCELLED, answered once")
  func inline_cancelledBeforeItsAnswer() throws {
    let (connection, ran) = try inlineConnection()
    defer { try? connection.finish() }
    try connection.receive(
      frames(call(1, "echo:late"), Envelope(callID: 1, kind: .cancel)))
    #expect(ran() == 1)
    let answers = try connection.sent()
    #expect(answers.count == 1)
    #expect(answers.first?.status?.code == .cancelled)
    // The id is free again: a later call with it is answered.
    try connection.receive(call(1, "echo:again"))
    #expect(Raw.text(try connection.sent().first) == "again")
  }

  @Test("an inline call with a deadline is answered once, and its deadline no longer fires")
  func inline_deadlineAnsweredOnce() throws {
    let (connection, _) = try inlineConnection()
    defer { try? connection.finish() }
    try connection.receive(call(1, "echo:in time", timeoutMs: 50))
    let answers = try connection.sent()
    #expect(answers.map(\.status?.code) == [.ok])
    connection.advance(by: .milliseconds(100))
    #expect(try connection.sent().isEmpty)
  }

  @Test("an inline handler's errors reach the caller as a task's do")
  func inline_errorsMapped() throws {
    let (connection, _) = try inlineConnection()
    defer { try? connection.finish() }
    try connection.receive(call(1, "fail"))
    let failed = try #require(try connection.sent().first)
    #expect(failed.status?.code == .invalidArgument)
    #expect(failed.status?.reason == "TEST_FAILURE")
    try connection.receive(call(2, "crash"))
    let crashed = try #require(try connection.sent().first)
    #expect(crashed.status?.code == .internal)
    #expect(connection.isOpen)
  }

  @Test("an inline call holds its place in the concurrency limit until it is answered")
  func inline_countsInTheLimit() throws {
    var configuration = ServerConfiguration()
    configuration.maximumConcurrentCallsPerConnection = 1
    let (connection, ran) = try inlineConnection(configuration: configuration)
    defer { try? connection.finish() }
    try connection.receive(frames(call(1, "echo:first"), call(2, "echo:second")))
    let answers = try connection.sent()
    #expect(ran() == 1)
    #expect(answers.map(\.callID) == [2, 1])
    #expect(answers.first?.status?.reason == "TOO_MANY_CONCURRENT_CALLS")
    #expect(Raw.text(answers.last) == "first")
  }

  @Test("an inline method that needs a session checks it without a task")
  func inline_authenticatesNow() throws {
    let (connection, ran) = try inlineConnection()
    defer { try? connection.finish() }
    let guarded = InlineService.guarded.path
    try connection.receive(call(1, "caller", method: guarded, token: "good"))
    #expect(Raw.text(try connection.sent().first) == "7")
    try connection.receive(call(2, "caller", method: guarded))
    #expect(try connection.sent().first?.status?.reason == "AUTHENTICATION_REQUIRED")
    try connection.receive(call(3, "caller", method: guarded, token: "bad"))
    #expect(try connection.sent().first?.status?.reason == "SESSION_INVALID")
    #expect(ran() == 1)
    // Run as it is read, before the loop runs any task.
    try connection.channel.writeInbound(
      frames(call(4, "echo:now", method: guarded, token: "good")))
    #expect(ran() == 2)
    #expect(Raw.text(try connection.sent().first) == "now")
  }

  @Test("with an authenticator that must wait, an inline method runs in a task, same answers")
  func inline_waitingAuthenticatorUsesATask() throws {
    let (connection, ran) = try inlineConnection(authenticator: WaitingAuthenticator())
    defer { try? connection.finish() }
    let guarded = InlineService.guarded.path
    try connection.receive(call(1, "caller", method: guarded, token: "good"))
    #expect(Raw.text(try connection.sent().first) == "7")
    try connection.receive(call(2, "caller", method: guarded, token: "bad"))
    #expect(try connection.sent().first?.status?.reason == "SESSION_INVALID")
    // Run in a task: not yet when it is read, once the loop runs.
    try connection.channel.writeInbound(
      frames(call(3, "echo:later", method: guarded, token: "good")))
    #expect(ran() == 1)
    #expect(Raw.text(try connection.sent().first) == "later")
    #expect(ran() == 2)
    // A method that needs no session is still served as it is read.
    try connection.channel.writeInbound(frames(call(4, "echo:now")))
    #expect(ran() == 3)
    #expect(Raw.text(try connection.sent().first) == "now")
  }

  @Test("without an authenticator an inline method that needs a session is refused")
  func inline_noAuthenticatorRefuses() throws {
    let (connection, ran) = try inlineConnection(authenticator: nil)
    defer { try? connection.finish() }
    try connection.receive(call(1, "caller", method: InlineService.guarded.path, token: "good"))
    #expect(try connection.sent().first?.status?.reason == "SESSION_INVALID")
    #expect(ran() == 0)
  }
}
