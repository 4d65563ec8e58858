import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOPosix
import Synchronization
import Testing

@testable import BadmintonRPC

/// Counts the retries a client makes.
private final class RetryCounter: Sendable {
  private let count = Mutex(0)
  /// Retries so far.
  var value: Int { count.withLock { $0 } }
  /// Counts one.
  func record() { count.withLock { $0 += 1 } }
}

/// Clients with TLS that trust `authority`, retries counted in `retries`.
private func tlsClientConfiguration(
  trusting authority: TestCertificateAuthority, retries: RetryCounter? = nil
) throws -> ClientConfiguration {
  ClientConfiguration(
    retrySleep: { _ in retries?.record() },
    tls: try ClientTLSConfiguration(caFile: authority.certificateFile))
}

/// A server configuration that serves TLS with `chain` and `key`.
private func tlsServerConfiguration(
  chain: String, key: String, handshakeTimeout: Duration = .seconds(10)
) throws -> ServerConfiguration {
  ServerConfiguration(
    tls: try ServerTLSConfiguration(
      certificateChainFile: chain, privateKeyFile: key, handshakeTimeout: handshakeTimeout))
}

@Suite("TLS under the frames")
struct TLSTests {
  // MARK: Calls over TLS

  @Test("calls work over TLS, to the server's IP address and to its name")
  func callsWorkOverTLS() async throws {
    let authority = try TestCertificateAuthority()
    defer { authority.remove() }
    let (chain, key) = try authority.issueServerCertificate()
    try await withTestServer(configuration: try tlsServerConfiguration(chain: chain, key: key)) {
      _, port, _ in
      let configuration = try tlsClientConfiguration(trusting: authority)
      try await withTestClient(port: port, configuration: configuration) { client in
        #expect(try await client.health.check().status == .serving)
        let answer = try await client.unary(TestService.unary, .init(service: "echo:over tls"))
        #expect(answer.service == "over tls")
        var seen: [String] = []
        for try await message in try await client.serverStreaming(
          TestService.stream, .init(service: "count:3"))
        {
          seen.append(message.service)
        }
        #expect(seen.count == 3)
      }
      // By name: the name goes out as SNI and is checked against the certificate's DNS name.
      let byName = RPCClient(host: "localhost", port: port, configuration: configuration)
      #expect(try await byName.health.check().status == .serving)
      await byName.close()
    }
  }

  // MARK: Refusals

  @Test("a certificate from an untrusted authority fails the call with TLS_CERTIFICATE_UNTRUSTED")
  func untrustedCertificate_isRefused() async throws {
    let authority = try TestCertificateAuthority()
    let stranger = try TestCertificateAuthority(commonName: "Some Other CA")
    defer {
      authority.remove()
      stranger.remove()
    }
    let (chain, key) = try authority.issueServerCertificate()
    try await withTestServer(configuration: try tlsServerConfiguration(chain: chain, key: key)) {
      server, port, _ in
      // A client served well before, during and after the refusal.
      try await withTestClient(
        port: port, configuration: try tlsClientConfiguration(trusting: authority)
      ) { good in
        #expect(try await good.health.check().status == .serving)
        let retries = RetryCounter()
        let configuration = try tlsClientConfiguration(trusting: stranger, retries: retries)
        let error = try await withTestClient(port: port, configuration: configuration) { client in
          await rpcError { _ = try await client.health.check() }
        }
        #expect(error?.code == .unavailable)
        #expect(error?.reason == "TLS_CERTIFICATE_UNTRUSTED")
        #expect(error?.message.en.contains("127.0.0.1:\(port)") == true)
        #expect(error?.message.zhCN.contains("证书不受信任") == true)
        #expect(retries.value == 0)
        #expect(try await good.health.check().status == .serving)
      }
      #expect(try await server.localAddress().port == port)
    }
  }

  @Test("a certificate for another name fails the call with TLS_HOSTNAME_MISMATCH")
  func wrongName_isRefused() async throws {
    let authority = try TestCertificateAuthority()
    defer { authority.remove() }
    let (chain, key) = try authority.issueServerCertificate(
      dnsNames: ["elsewhere.example"], ipAddresses: [[192, 0, 2, 1]])
    try await withTestServer(configuration: try tlsServerConfiguration(chain: chain, key: key)) {
      _, port, _ in
      let retries = RetryCounter()
      let configuration = try tlsClientConfiguration(trusting: authority, retries: retries)
      for host in ["127.0.0.1", "localhost"] {
        let client = RPCClient(host: host, port: port, configuration: configuration)
        let error = await rpcError { _ = try await client.health.check() }
        await client.close()
        #expect(error?.code == .unavailable)
        #expect(error?.reason == "TLS_HOSTNAME_MISMATCH")
        #expect(error?.message.en == "The server's certificate is not valid for \(host).")
        #expect(error?.message.zhCN == "服务器的证书不适用于 \(host)。")
      }
      #expect(retries.value == 0)
    }
  }

  @Test("a client without TLS against a TLS port fails at once with TLS_REQUIRED")
  func plainClient_againstTLSPort_getsTLSRequired() async throws {
    let authority = try TestCertificateAuthority()
    defer { authority.remove() }
    let (chain, key) = try authority.issueServerCertificate()
    try await withTestServer(configuration: try tlsServerConfiguration(chain: chain, key: key)) {
      _, port, _ in
      let retries = RetryCounter()
      let configuration = ClientConfiguration(retrySleep: { _ in retries.record() })
      // No deadline: the answer, not a timer, ends the call.
      let error = try await withTestClient(port: port, configuration: configuration) { client in
        await rpcError { _ = try await client.health.check() }
      }
      #expect(error?.code == .unavailable)
      #expect(error?.reason == "TLS_REQUIRED")
      #expect(error?.message.zhCN == "服务器只接受 TLS 连接，请使用 TLS 连接。")
      #expect(retries.value == 0)

      // On the wire: one plain-text GOAWAY, then the close.
      let raw = try await RawConnection.connect(port: port)
      try await raw.send(Raw.request(1, "echo:hi"))
      let seen = try await raw.readUntilClosed()
      #expect(seen.map(\.kind) == [.goaway])
      #expect(seen.first?.status?.reason == "TLS_REQUIRED")
      #expect(seen.first?.status?.code == .unavailable)
    }
  }

  @Test("a TLS client against a plain port fails at once with TLS_HANDSHAKE_FAILED")
  func tlsClient_againstPlainPort_failsHandshake() async throws {
    let authority = try TestCertificateAuthority()
    defer { authority.remove() }
    try await withTestServer { _, port, _ in
      let retries = RetryCounter()
      let configuration = try tlsClientConfiguration(trusting: authority, retries: retries)
      let error = try await withTestClient(port: port, configuration: configuration) { client in
        await rpcError { _ = try await client.health.check() }
      }
      #expect(error?.code == .unavailable)
      #expect(error?.reason == "TLS_HANDSHAKE_FAILED")
      #expect(
        error?.message.en
          == "The TLS handshake with 127.0.0.1:\(port) failed; the server may not be serving TLS.")
      #expect(retries.value == 0)
    }
  }

  @Test("TLS errors are never retried; the other UNAVAILABLE errors keep their rule")
  func tlsErrors_areNotRetried() {
    for error in [
      RPCError.tlsRequired, .tlsCertificateUntrusted("h:1"), .tlsHostnameMismatch("h"),
      .tlsHandshakeFailed("h:1"),
    ] {
      #expect(!RPCClient.mayRetry(error, idempotent: true))
      #expect(RPCError.tlsReasons.contains(error.reason))
    }
    #expect(RPCClient.mayRetry(.connectFailed("h:1"), idempotent: false))
  }

  // MARK: The handshake timeout

  @Test("a connection that opens TLS and stalls is closed at the handshake timeout, not before")
  func stalledHandshake_isClosedAtTheTimeout() async throws {
    let authority = try TestCertificateAuthority()
    defer { authority.remove() }
    let (chain, key) = try authority.issueServerCertificate()
    let tls = try ServerTLSConfiguration(
      certificateChainFile: chain, privateKeyFile: key, handshakeTimeout: .seconds(10))
    for opening: [UInt8] in [[], [0x16, 0x03, 0x01]] {
      let loop = EmbeddedEventLoop()
      let channel = EmbeddedChannel(loop: loop)
      try channel.pipeline.syncOperations.addHandlers(
        tls.makeHandlers(logger: Logger(label: "test")))
      try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
      if !opening.isEmpty {
        try channel.writeInbound(ByteBuffer(bytes: opening))
      }
      loop.advanceTime(by: .seconds(10) - .milliseconds(1))
      #expect(channel.isActive)
      loop.advanceTime(by: .milliseconds(1))
      #expect(!channel.isActive)
      _ = try? channel.finish()
    }
  }

  @Test("over a socket, a connection that opens TLS and stalls is closed by the server")
  func stalledHandshake_overASocket_isCutOff() async throws {
    let authority = try TestCertificateAuthority()
    defer { authority.remove() }
    let (chain, key) = try authority.issueServerCertificate()
    let configuration = try tlsServerConfiguration(
      chain: chain, key: key, handshakeTimeout: .milliseconds(200))
    try await withTestServer(configuration: configuration) { server, port, _ in
      for opening: [UInt8] in [[], [0x16, 0x03, 0x01]] {
        let stalled = try await RawConnection.connect(port: port)
        // The start of a ClientHello, then nothing; on a slow machine the timeout may have
        // closed the connection before these bytes are sent, which ends the same way.
        if !opening.isEmpty { try? await stalled.send(opening) }
        // The bound only fails a broken build; the server's close ends the wait.
        let seen = try await stalled.readUntilClosed()
        #expect(seen.isEmpty)
        #expect(stalled.isClosedByPeer)
      }
      #expect(try await server.localAddress().port == port)
    }
  }

  @Test("a server that accepts but never answers the handshake fails the client's connect")
  func silentServer_failsTheClientsConnect() async throws {
    let authority = try TestCertificateAuthority()
    defer { authority.remove() }
    let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .bind(host: "127.0.0.1", port: 0).get()
    let port = try #require(listener.localAddress?.port)
    var configuration = try tlsClientConfiguration(trusting: authority)
    configuration.connectTimeout = .milliseconds(200)
    configuration.retry = .none
    let error = try await withTestClient(port: port, configuration: configuration) { client in
      await rpcError { _ = try await client.health.check() }
    }
    try await listener.close()
    #expect(error?.reason == "CONNECT_FAILED")
  }

  // MARK: Start-up errors

  @Test("a missing, malformed or mismatched file is an error naming the file")
  func badFiles_areNamed() throws {
    let authority = try TestCertificateAuthority()
    defer { authority.remove() }
    let (chain, key) = try authority.issueServerCertificate()
    let (_, otherKey) = try authority.issueServerCertificate(named: "other")
    let missing = authority.folder.appendingPathComponent("missing.pem").path
    let garbage = try authority.write("not a certificate\n", to: "garbage.pem")

    func failure(_ chain: String, _ key: String) -> TLSFileError? {
      do {
        _ = try ServerTLSConfiguration(certificateChainFile: chain, privateKeyFile: key)
        return nil
      } catch {
        return error
      }
    }
    #expect(failure(chain, key) == nil)
    let noChain = try #require(failure(missing, key))
    #expect(noChain.file == missing)
    #expect(noChain.description.contains("No such file or directory"))
    #expect(failure(chain, missing)?.file == missing)
    #expect(failure(garbage, key)?.file == garbage)
    #expect(failure(chain, garbage)?.file == garbage)
    let mismatch = try #require(failure(chain, otherKey))
    #expect(mismatch.file == otherKey)
    #expect(mismatch.description.contains("does not match"))

    #expect(throws: TLSFileError.self) { try ClientTLSConfiguration(caFile: missing) }
    #expect(throws: TLSFileError.self) { try ClientTLSConfiguration(caFile: garbage) }
  }
}
