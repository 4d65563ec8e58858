import BadmintonSQLite
import BadmintonServices
import BadmintonStore
import BadmintonStoreSQL
import Foundation
import NIOCore
import NIOPosix
import Testing

@Suite("badminton-server's operator console over real sockets")
struct ConsoleExecutableTests {
  /// Collects what the server sends on a connection until it closes.
  final class Collector: ChannelInboundHandler, @unchecked Sendable {
    // Used on the connection's event loop only.
    typealias InboundIn = ByteBuffer
    let done: EventLoopPromise<String>
    var received = ""
    init(done: EventLoopPromise<String>) { self.done = done }
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      received += String(buffer: unwrapInboundIn(data))
    }
    func channelInactive(context: ChannelHandlerContext) { done.succeed(received) }
  }

  /// A connection from `source` to `port` on 127.0.0.1, and all it receives until it closes.
  static func open(from source: String, port: Int) async throws
    -> (any Channel, EventLoopFuture<String>)
  {
    let loop = MultiThreadedEventLoopGroup.singleton.next()
    let done = loop.makePromise(of: String.self)
    let channel = try await ClientBootstrap(group: loop)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(Collector(done: done))
        }
      }
      .bind(to: try SocketAddress(ipAddress: source, port: 0))
      .connect(host: "127.0.0.1", port: port).get()
    return (channel, done.futureResult)
  }

  @Test(
    "the console closes an address's connections past --console-connections-per-address and answers an operator from another",
    .timeLimit(.minutes(2)))
  func perAddressShare_heldByTheServer() async throws {
    let dataDir = FileManager.default.temporaryDirectory
      .appendingPathComponent("badminton-console-limits-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dataDir) }
    try FileManager.default.createDirectory(at: dataDir, withIntermediateDirectories: true)
    let admin: Int64
    do {
      let store = try SQLitePlayerStore.open(directory: dataDir.path)
      let digest = try await PasswordHasher(cost: .testing).digest("correct horse")
      admin = try await store.createPlayer(
        NewPlayer(
          phone: "+8613700000001", nickname: "Admin", password: digest, selfLevel: 5,
          locale: "en", joinedAtUnixMs: 0)
      ).id
    }
    let server = try ServerProcess.start([
      "--data-dir", dataDir.path, "--admin-id", "\(admin)", "--console-port", "0",
      "--console-connections-per-address", "2",
    ])
    defer { server.stop() }
    let port = try #require(server.consolePort)
    // Six silent connections from 127.0.0.2: the console keeps two and closes four at once.
    var silent: [(channel: any Channel, closed: EventLoopFuture<String>)] = []
    for _ in 0..<6 { silent.append(try await Self.open(from: "127.0.0.2", port: port)) }
    let (closes, closed) = AsyncStream.makeStream(of: Void.self)
    for connection in silent { connection.closed.whenComplete { _ in closed.yield() } }
    var seen = 0
    for await _ in closes {
      seen += 1
      if seen == 4 { break }
    }
    // The two kept are served: each sends a request and is answered. (Had the four been closed
    // by a deadline instead, all six would be, and nothing would be answered.)
    var answered = 0
    for connection in silent where connection.channel.isActive {
      try? await connection.channel.writeAndFlush(
        ByteBuffer(
          string: "GET /console.css HTTP/1.1\r\nHost: console\r\nConnection: close\r\n\r\n")
      ).get()
      if try await connection.closed.get().hasPrefix("HTTP/1.1 200 OK\r\n") { answered += 1 }
    }
    #expect(answered == 2)
    // An operator from 127.0.0.1 is answered.
    let (operatorChannel, answer) = try await Self.open(from: "127.0.0.1", port: port)
    try await operatorChannel.writeAndFlush(
      ByteBuffer(string: "GET /sign-in HTTP/1.1\r\nHost: console\r\nConnection: close\r\n\r\n")
    ).get()
    let received = try await answer.get()
    #expect(received.hasPrefix("HTTP/1.1 200 OK\r\n"))
    #expect(received.contains("<form id=\"sign-in\""))
  }
}
