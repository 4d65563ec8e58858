import ChaosSupport
import Logging
import NIOCore
import NIOEmbedded
import NIOPosix
import Synchronization
import Testing

@testable import BadmintonRPC

@Suite("Server and client over TCP")
struct ServerTests {
  // MARK: Unary and streaming

  @Test("health check answers SERVING, and reflection lists every method sorted")
  func builtIns_answer() async throws {
    try await withTestServer { _, port, _ in
      try await withTestClient(port: port) { client in
        #expect(try await client.health.check().status == .serving)
        #expect(
          try await client.health.check(HealthCheckRequest(service: "badminton.rpc.v1.Reflection"))
            .status == .serving)
        let unknown = await rpcError {
          _ = try await client.health.check(HealthCheckRequest(service: "nope"))
        }
        #expect(unknown?.code == .notFound)

        let methods = try await client.reflection.listMethods().methods
        #expect(methods.map(\.path) == methods.map(\.path).sorted())
        let check = try #require(methods.first { $0.path == "/badminton.rpc.v1.Health/Check" })
        #expect(check.requestType == "badminton.rpc.v1.HealthCheckRequest")
        #expect(check.responseType == "badminton.rpc.v1.HealthCheckResponse")
        #expect(!check.serverStreaming && check.idempotent && !check.requiresAuthentication)
        #expect(
          methods.first { $0.path == "/badminton.rpc.v1.Health/Watch" }?.serverStreaming == true)
        #expect(methods.contains { $0.path == "/badminton.rpc.v1.Reflection/ListMethods" })
        #expect(methods.contains { $0.path == TestService.stream.path })
      }
    }
  }

  @Test("a unary call returns its answer; handler errors keep their code, reason and violations")
  func unary_answersAndErrors() async throws {
    try await withTestServer { _, port, _ in
      try await withTestClient(port: port) { client in
        let answer = try await client.unary(
          TestService.unary, HealthCheckRequest(service: "echo:hello"))
        #expect(answer.service == "hello")

        let failure = await rpcError {
          _ = try await client.unary(TestService.unary, .init(service: "fail"))
        }
        #expect(failure?.code == .invalidArgument)
        #expect(failure?.reason == "TEST_FAILURE")
        #expect(failure?.message.en == "test failure")
        #expect(failure?.violations.map(\.field) == ["service"])

        let chinese = await rpcError {
          _ = try await client.unary(
            TestService.unary, .init(service: "fail"), options: CallOptions(locale: .zhCN))
        }
        #expect(chinese?.message.en == "测试失败")
        #expect(chinese?.violations.first?.description.en == "错误")

        let crash = await rpcError {
          _ = try await client.unary(TestService.unary, .init(service: "crash"))
        }
        #expect(crash?.code == .internal)
        #expect(crash?.reason == "INTERNAL_ERROR")
      }
    }
  }

  @Test("a streaming call yields every message in order, then ends")
  func streaming_yieldsInOrder() async throws {
    try await withTestServer { _, port, probe in
      try await withTestClient(port: port) { client in
        var received: [String] = []
        for try await message in try await client.serverStreaming(
          TestService.stream, .init(service: "count:50"))
        {
          received.append(message.service)
        }
        #expect(received == (0..<50).map { "\($0)" })

        let bad = await rpcError {
          for try await _ in try await client.serverStreaming(
            TestService.stream, .init(service: "bad"))
          {}
        }
        #expect(bad?.reason == "BAD_COMMAND")
        #expect(await probe.wait { $0.finished == 1 })
      }
    }
  }

  @Test("handlers run on their connection's event loop, also after they wait")
  func handlers_runOnTheEventLoop() async throws {
    try await withTestServer { _, port, _ in
      try await withTestClient(port: port) { client in
        let answer = try await client.unary(TestService.unary, .init(service: "thread"))
        #expect(answer.service == "event-loop event-loop")
      }
    }
  }

  @Test("100 concurrent calls on one connection each get their own answer")
  func concurrentCalls_interleave() async throws {
    try await withTestServer { _, port, probe in
      try await withTestClient(port: port) { client in
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
          for index in 0..<100 {
            group.addTask {
              let answer = try await client.unary(
                TestService.unary, .init(service: "gate:all:call-\(index)"))
              return (index, answer.service)
            }
          }
          // All 100 are open on the server at once before any may answer.
          #expect(await probe.wait { $0.started == 100 })
          probe.open("all")
          var seen = 0
          for try await (index, answer) in group {
            #expect(answer == "call-\(index)")
            seen += 1
          }
          #expect(seen == 100)
        }
      }
      // On the wire: answers come back in the order they finish, not the order asked.
      let raw = try await RawConnection.connect(port: port)
      for index in 1...20 {
        try await raw.send(Raw.request(UInt64(index), "gate:call-\(index):\(index)"))
      }
      #expect(await probe.wait { $0.started == 120 })
      for index in (1...20).reversed() {
        probe.open("call-\(index)")
        let answer = try #require(try await raw.readEnvelope())
        #expect(answer.kind == .response)
        #expect(answer.callID == UInt64(index))
        #expect(Raw.text(answer) == "\(index)")
      }
      await raw.close()
    }
  }

  // MARK: Deadlines and cancellation

  @Test("the server answers DEADLINE_EXCEEDED when timeout_ms passes, and stops the work")
  func deadline_isEnforcedByServer() async throws {
    try await withTestServer { _, port, probe in
      let raw = try await RawConnection.connect(port: port)
      // The handler waits at a gate that never opens: only the deadline can end the call.
      try await raw.send(Raw.request(1, "gate:never:late", timeoutMs: 150))
      let answer = try #require(try await raw.readEnvelope())
      #expect(answer.callID == 1)
      #expect(answer.kind == .response)
      #expect(answer.status?.code == .deadlineExceeded)
      #expect(await probe.wait { $0.cancelled == 1 })
      // Nothing else comes for that call.
      try await raw.send(Envelope(callID: 0, kind: .ping, payload: [9]))
      #expect(try await raw.readEnvelope()?.kind == .pong)
      await raw.close()
    }
  }

  @Test("the server's deadline fires when timeout_ms has passed on its clock, not before")
  func deadline_firesOnTime() throws {
    let probe = HandlerProbe()
    let connection = try EmbeddedServerConnection(server: embeddedTestServer(probe: probe))
    try connection.receive(Raw.request(1, "gate:never:late", timeoutMs: 150))
    #expect(probe.started == 1)
    connection.advance(by: .milliseconds(149))
    #expect(try connection.sent().isEmpty)
    #expect(probe.cancelled == 0)
    connection.advance(by: .milliseconds(1))
    let answer = try #require(try connection.sent().first)
    #expect(answer.callID == 1)
    #expect(answer.status?.code == .deadlineExceeded)
    // The handler was stopped, not left running.
    connection.loop.run()
    #expect(probe.cancelled == 1)
    try connection.finish()
  }

  @Test("the client turns its timeout into timeout_ms and fails with DEADLINE_EXCEEDED")
  func deadline_fromClient() async throws {
    try await withTestServer { _, port, probe in
      try await withTestClient(port: port) { client in
        let error = await rpcError {
          _ = try await client.unary(
            TestService.unary, .init(service: "gate:never"),
            options: CallOptions(timeout: .milliseconds(100)))
        }
        #expect(error?.code == .deadlineExceeded)
        #expect(await probe.wait { $0.cancelled == 1 })

        let streamError = await rpcError {
          for try await _ in try await client.serverStreaming(
            TestService.stream, .init(service: "gate:never"),
            options: CallOptions(timeout: .milliseconds(100)))
          {}
        }
        #expect(streamError?.code == .deadlineExceeded)
        #expect(await probe.wait { $0.cancelled == 2 })
      }
    }
  }

  @Test("CANCEL stops the call's work and ends the call with CANCELLED")
  func cancel_stopsWork() async throws {
    try await withTestServer { _, port, probe in
      let raw = try await RawConnection.connect(port: port)
      try await raw.send(Raw.request(7, "gate:never"))
      #expect(await probe.wait { $0.started == 1 })
      try await raw.send(Envelope(callID: 7, kind: .cancel))
      let answer = try #require(try await raw.readEnvelope())
      #expect(answer.callID == 7)
      #expect(answer.status?.code == .cancelled)
      #expect(await probe.wait { $0.cancelled == 1 })
      // A CANCEL for a call that is not open is ignored; the connection lives on.
      try await raw.send(Envelope(callID: 99, kind: .cancel))
      try await raw.send(Raw.request(8, "echo:still here"))
      #expect(Raw.text(try await raw.readEnvelope()) == "still here")
      await raw.close()
    }
  }

  @Test("cancelling the client's task sends CANCEL, for unary and streaming calls")
  func taskCancellation_becomesCancel() async throws {
    try await withTestServer { _, port, probe in
      try await withTestClient(port: port) { client in
        let call = Task { try await client.unary(TestService.unary, .init(service: "gate:never")) }
        #expect(await probe.wait { $0.started == 1 })
        call.cancel()
        let error = await rpcError { _ = try await call.value }
        #expect(error?.code == .cancelled)
        #expect(await probe.wait { $0.cancelled == 1 })

        var received = 0
        for try await _ in try await client.serverStreaming(
          TestService.stream, .init(service: "forever"))
        {
          received += 1
          if received == 3 { break }
        }
        #expect(await probe.wait { $0.cancelled == 2 })
        // The connection still serves.
        #expect(try await client.health.check().status == .serving)
      }
    }
  }

  // MARK: Ping, compression, errors per call

  @Test("PING is answered by PONG with the same payload")
  func ping_isAnswered() async throws {
    try await withTestServer { _, port, _ in
      try await withTestClient(port: port) { client in try await client.ping() }
      let raw = try await RawConnection.connect(port: port)
      let payload = (0..<64).map { UInt8($0) }
      try await raw.send(Envelope(callID: 0, kind: .ping, payload: payload))
      let pong = try #require(try await raw.readEnvelope())
      #expect(pong.kind == .pong)
      #expect(pong.payload == payload)
      // The server also answers the client's PONG-less PING with an empty payload.
      try await raw.send(Envelope(callID: 0, kind: .ping))
      #expect(try await raw.readEnvelope() == Envelope(callID: 0, kind: .pong))
      await raw.close()
    }
  }

  @Test("large bodies travel compressed, small ones plain, and either form is accepted")
  func compression_bothWays() async throws {
    try await withTestServer { _, port, _ in
      let raw = try await RawConnection.connect(port: port)
      let big = String(repeating: "badminton ", count: 2000)
      try await raw.send(Raw.request(1, "echo:\(big)"), compressed: true)
      let compressed = try #require(try await raw.readFrame())
      #expect(compressed.flags == 1)
      #expect(Raw.text(compressed.envelope) == big)

      try await raw.send(Raw.request(2, "echo:\(big)"), compressed: false)
      #expect(try await raw.readFrame()?.flags == 1)

      // A tiny body compressed by the sender is accepted too; the small answer comes back plain.
      try await raw.send(Raw.request(3, "echo:hi"), compressed: true)
      let small = try #require(try await raw.readFrame())
      #expect(small.flags == 0)
      #expect(Raw.text(small.envelope) == "hi")
      await raw.close()

      try await withTestClient(port: port) { client in
        let answer = try await client.unary(TestService.unary, .init(service: "echo:\(big)"))
        #expect(answer.service == big)
      }
    }
  }

  @Test("a payload that is not the request type fails that call only")
  func malformedPayload_failsCallOnly() async throws {
    try await withTestServer { _, port, _ in
      let raw = try await RawConnection.connect(port: port)
      var bad = Raw.request(1, "")
      bad.payload = [0x0A, 0x10, 0x41]  // field 1 claims 16 bytes, has 1
      try await raw.send(bad)
      let answer = try #require(try await raw.readEnvelope())
      #expect(answer.status?.code == .invalidArgument)
      #expect(answer.status?.reason == "REQUEST_MALFORMED")
      try await raw.send(Raw.request(2, "echo:alive"))
      #expect(Raw.text(try await raw.readEnvelope()) == "alive")
      await raw.close()
    }
  }

  @Test("an unknown method gets UNIMPLEMENTED, in the caller's locale")
  func unknownMethod_isUnimplemented() async throws {
    try await withTestServer { _, port, _ in
      let raw = try await RawConnection.connect(port: port)
      try await raw.send(Raw.request(1, "", method: "/badminton.v1.Nope/Nothing"))
      let english = try #require(try await raw.readEnvelope())
      #expect(english.status?.code == .unimplemented)
      #expect(english.status?.reason == "METHOD_NOT_FOUND")
      #expect(english.status?.message.contains("/badminton.v1.Nope/Nothing") == true)
      try await raw.send(Raw.request(2, "", method: "/badminton.v1.Nope/Nothing", locale: "zh-CN"))
      let chinese = try #require(try await raw.readEnvelope())
      #expect(chinese.status?.message.hasPrefix("服务器没有方法") == true)
      await raw.close()
    }
  }

  @Test("calls over the per-connection limit get RESOURCE_EXHAUSTED; the others complete")
  func concurrencyLimit_isEnforced() async throws {
    try await withTestServer(
      configuration: ServerConfiguration(maximumConcurrentCallsPerConnection: 2)
    ) { _, port, probe in
      let raw = try await RawConnection.connect(port: port)
      // Both calls stay open until the test opens their gate.
      try await raw.send(Raw.request(1, "gate:running:one"))
      try await raw.send(Raw.request(2, "gate:running:two"))
      #expect(await probe.wait { $0.started == 2 })
      try await raw.send(Raw.request(3, "echo:three"))
      let refused = try #require(try await raw.readEnvelope())
      #expect(refused.callID == 3)
      #expect(refused.status?.code == .resourceExhausted)
      #expect(refused.status?.reason == "TOO_MANY_CONCURRENT_CALLS")
      probe.open("running")
      let done = [try await raw.readEnvelope(), try await raw.readEnvelope()]
      #expect(Set(done.compactMap { Raw.text($0) }) == ["one", "two"])
      // With room again, a new call goes through.
      try await raw.send(Raw.request(4, "echo:four"))
      #expect(Raw.text(try await raw.readEnvelope()) == "four")
      await raw.close()
    }
  }

  @Test("a server that cannot bind says why, to run and to every later localAddress call")
  func bindFailure_isReported() async throws {
    let first = try await RunningServer.start()
    let second = RPCServer(
      configuration: ServerConfiguration(port: first.port), services: [],
      logger: Logger(label: "test.server"))
    await #expect(throws: (any Error).self) { try await second.run() }
    await #expect(throws: (any Error).self) { try await second.localAddress() }
    await first.stop()
  }

  @Test("requests over the server-wide byte budget get SERVER_BUSY; others still go through")
  func requestBudget_isServerWide() async throws {
    let padding = String(repeating: "p", count: 1000)
    try await withTestServer(
      configuration: ServerConfiguration(maximumRequestBytesInFlight: 1500)
    ) { _, port, probe in
      let first = try await RawConnection.connect(port: port)
      // Held open until the test opens its gate, however long the second connection takes.
      try await first.send(Raw.request(1, "gate:first:\(padding)"))
      #expect(await probe.wait { $0.started == 1 })
      // Another connection's large request would pass the budget while the first is open.
      let second = try await RawConnection.connect(port: port)
      try await second.send(Raw.request(1, "echo:\(padding)"))
      let refused = try #require(try await second.readEnvelope())
      #expect(refused.status?.code == .resourceExhausted)
      #expect(refused.status?.reason == "SERVER_BUSY")
      #expect(refused.status?.retryAfterMs == 1000)
      // A small request still fits.
      try await second.send(Raw.request(2, "echo:small"))
      #expect(Raw.text(try await second.readEnvelope()) == "small")
      probe.open("first")
      #expect(Raw.text(try await first.readEnvelope()) == padding)
      // Once the first call has ended its bytes are free again.
      try await second.send(Raw.request(3, "echo:\(padding)"))
      #expect(Raw.text(try await second.readEnvelope()) == padding)
      await first.close()
      await second.close()
    }
  }

  @Test("a peer that sends faster than it reads is slowed down, and loses nothing")
  func backpressure_losesNothing() async throws {
    try await withTestServer(authenticator: GoodTokenAuthenticator()) { _, port, _ in
      let raw = try await RawConnection.connect(port: port)
      // With a session, the connection's calls may hold more than 64 KiB of requests at once.
      var check = Raw.request(1_000, "", method: Health.checkSession.path)
      check.metadata = [Metadata(key: "authorization", value: "Bearer good")]
      try await raw.send(check)
      #expect(try await raw.readEnvelope()?.status?.code == .ok)
      let big = String(repeating: "x", count: 60_000)
      let count = 300
      // 300 answers of 60 kB each (18 MB) are asked for before any is read.
      let sender = Task {
        for index in 1...count {
          try await raw.send(Raw.request(UInt64(index), "echo:\(index):\(big)"))
        }
      }
      let otherStatus = try await withTestClient(port: port) { other in
        try await other.health.check().status
      }
      #expect(otherStatus == .serving)
      var seen = Set<UInt64>()
      for _ in 1...count {
        let answer = try #require(try await raw.readEnvelope())
        #expect(Raw.text(answer) == "\(answer.callID):\(big)")
        seen.insert(answer.callID)
      }
      #expect(seen.count == count)
      try await sender.value
      await raw.close()
    }
  }

  @Test("an answer over the frame limit fails that call only; a request over it is not sent")
  func oversizeMessages_failTheCallOnly() async throws {
    let limit = 64 * 1024
    let configuration = ServerConfiguration(wire: WireConfiguration(maximumBodySize: limit))
    try await withTestServer(configuration: configuration) { _, port, _ in
      let big = String(repeating: "z", count: limit)
      let raw = try await RawConnection.connect(port: port)
      // Small requests asking for answers just under and just over the limit.
      try await raw.send(Raw.request(1, "size:\(limit - 100)"))
      #expect(Raw.text(try await raw.readEnvelope())?.count == limit - 100)
      try await raw.send(Raw.request(2, "size:\(limit)"))
      let refused = try #require(try await raw.readEnvelope())
      #expect(refused.callID == 2)
      #expect(refused.status?.code == .resourceExhausted)
      #expect(refused.status?.reason == "RESPONSE_TOO_LARGE")
      try await raw.send(Raw.request(3, "echo:still open"))
      #expect(Raw.text(try await raw.readEnvelope()) == "still open")
      await raw.close()

      let small = ClientConfiguration(wire: WireConfiguration(maximumBodySize: limit))
      try await withTestClient(port: port, configuration: small) { client in
        let tooBig = await rpcError {
          _ = try await client.unary(TestService.unary, .init(service: "echo:\(big)"))
        }
        #expect(tooBig?.reason == "REQUEST_TOO_LARGE")
        let status = try await client.health.check().status
        #expect(status == .serving)
      }
    }
  }

  // MARK: Idle timeout and keepalive

  @Test("a silent connection gets GOAWAY(IDLE_TIMEOUT) and is closed; PING keeps one alive")
  func idleTimeout_closesSilentConnections() throws {
    // On the connection's own clock: the timeout fires when the test's time reaches it.
    let server = embeddedTestServer(ServerConfiguration(idleTimeout: .milliseconds(1500)))
    let silent = try EmbeddedServerConnection(server: server)
    silent.advance(by: .milliseconds(1499))
    #expect(try silent.sent().isEmpty)
    #expect(silent.isOpen)
    silent.advance(by: .milliseconds(1))
    let seen = try silent.sent()
    #expect(seen.map(\.kind) == [.goaway])
    #expect(seen.first?.status?.reason == "IDLE_TIMEOUT")
    #expect(seen.first?.status?.code == .unavailable)
    #expect(!silent.isOpen)
    try silent.finish()

    // A PING shortly before each timeout, for ten timeouts' worth of time.
    let pinging = try EmbeddedServerConnection(server: server)
    for round in 0..<10 {
      pinging.advance(by: .milliseconds(1400))
      try pinging.receive(Envelope(callID: 0, kind: .ping, payload: [UInt8(round)]))
      #expect(try pinging.sent() == [Envelope(callID: 0, kind: .pong, payload: [UInt8(round)])])
    }
    #expect(pinging.isOpen)
    // Then silence: the timeout counts from the last PING.
    pinging.advance(by: .milliseconds(1499))
    #expect(try pinging.sent().isEmpty)
    #expect(pinging.isOpen)
    pinging.advance(by: .milliseconds(1))
    #expect(try pinging.sent().map(\.status?.reason) == ["IDLE_TIMEOUT"])
    #expect(!pinging.isOpen)
    try pinging.finish()
  }

  @Test("the client's keepalive PINGs hold a long call open past the server's idle timeout")
  func clientKeepalive_holdsLongCalls() throws {
    // Client and server on one embedded loop, so one clock runs both timers.
    let loop = EmbeddedEventLoop()
    let probe = HandlerProbe()
    let server = try EmbeddedServerConnection(
      server: embeddedTestServer(
        ServerConfiguration(idleTimeout: .milliseconds(1500)), probe: probe),
      loop: loop)
    let client = try EmbeddedClientConnection(
      configuration: ClientConfiguration(keepaliveInterval: .milliseconds(150)), loop: loop)
    let link = EmbeddedLink(client: client, server: server)
    // A streaming call that sends nothing until the test lets it end.
    let (stream, call) = AsyncThrowingStream.makeStream(of: [UInt8].self)
    client.connection.startCall(
      1, method: TestService.stream.path,
      payload: ByteBuffer(bytes: HealthCheckRequest(service: "gate:long").serializedBytes()),
      metadata: [],
      timeout: nil, pending: .stream(call))
    try link.pump()
    #expect(probe.started == 1)

    // Four idle timeouts' worth of time, 10 ms at a time.
    var toServer: [Envelope] = []
    var toClient: [Envelope] = []
    for _ in 0..<600 {
      loop.advanceTime(by: .milliseconds(10))
      let carried = try link.pump()
      toServer += carried.toServer
      toClient += carried.toClient
    }
    #expect(server.isOpen)
    #expect(!toClient.contains { $0.kind == .goaway })
    // A PING every keepalive interval, each answered.
    #expect(toServer.count == 6000 / 150)
    #expect(toServer.allSatisfy { $0.kind == .ping })
    #expect(toClient.count == toServer.count)
    #expect(toClient.allSatisfy { $0.kind == .pong })

    // The call ends normally; with no call open the client sends no more PINGs.
    probe.open("long")
    let end = try link.pump().toClient
    #expect(end.map(\.kind) == [.streamEnd])
    #expect(end.first?.status?.code == .ok)
    loop.advanceTime(by: .milliseconds(1000))
    #expect(try link.pump().toServer.isEmpty)
    _ = try? client.channel.finish(acceptAlreadyClosed: true)
    try server.finish()
    withExtendedLifetime(stream) {}
  }

  // MARK: Retries

  @Test("idempotent calls are retried at most 3 times on a lost connection; others never")
  func retries_areBoundedAndOnlyForIdempotentCalls() async throws {
    let accepts = Atomic<Int>(0)
    // A listener that hangs up as soon as the request arrives: the call was sent, then lost.
    let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .childChannelInitializer { channel in
        accepts.add(1, ordering: .relaxed)
        return channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(HangUpOnRead())
        }
      }
      .bind(host: "127.0.0.1", port: 0).get()
    let port = listener.localAddress!.port!
    let retry = RetryPolicy(
      maximumRetries: 3, initialBackoff: .milliseconds(10), maximumBackoff: .milliseconds(40))
    // Each retry's pause is recorded, not waited out.
    let pauses = Mutex<[Duration]>([])
    let configuration = ClientConfiguration(
      retry: retry, retrySleep: { pause in pauses.withLock { $0.append(pause) } })
    try await withTestClient(port: port, configuration: configuration) { client in
      let idempotent = await rpcError {
        _ = try await client.unary(TestService.idempotentUnary, .init(service: "x"))
      }
      #expect(idempotent?.code == .unavailable)
      // Three retries after the first attempt, each sent: four connections.
      #expect(pauses.withLock { $0.count } == 3)
      #expect(await waitUntil { accepts.load(ordering: .relaxed) == 4 })

      let once = await rpcError {
        _ = try await client.unary(TestService.unary, .init(service: "x"))
      }
      #expect(once?.code == .unavailable)
      #expect(pauses.withLock { $0.count } == 3)
      #expect(await waitUntil { accepts.load(ordering: .relaxed) == 5 })
    }
    try await listener.close()
  }

  @Test("a call the server never received is retried even when not idempotent")
  func retries_unsentCalls() async throws {
    // A port nothing listens on, below the ephemeral range and handed out once per process: a
    // port freed by a server of port 0 can be taken meanwhile by another test's server (whose
    // stop then loses this call) or by an outgoing connection's own end.
    let port = ChaosProxy.portOutsideEphemeralRange()
    // The server comes up while the client backs off: in its pause before the first retry.
    let restarted = Mutex<RunningServer?>(nil)
    let configuration = ClientConfiguration(retrySleep: { _ in
      guard restarted.withLock({ $0 == nil }) else { return }
      let server = try await RunningServer.start(port: port)
      restarted.withLock { $0 = server }
    })
    try await withTestClient(port: port, configuration: configuration) { client in
      let answer = try await client.unary(TestService.unary, .init(service: "echo:sent once"))
      #expect(answer.service == "sent once")
      let server = try #require(restarted.withLock { $0 })
      #expect(server.probe.started == 1)
      await server.stop()
    }
    #expect(RPCClient.mayRetry(.connectFailed("x"), idempotent: false))
    #expect(RPCClient.mayRetry(.serverShuttingDown, idempotent: false))
    #expect(!RPCClient.mayRetry(.connectionLost, idempotent: false))
    #expect(RPCClient.mayRetry(.connectionLost, idempotent: true))
    #expect(!RPCClient.mayRetry(.deadlineExceeded, idempotent: true))
  }

  @Test("after the server drops, an idempotent call reconnects and succeeds")
  func retries_reconnectAfterDrop() async throws {
    // Below the ephemeral range, so that no other test's server of port 0 takes it between
    // the stop and the restart.
    let first = try await RunningServer.start(port: ChaosProxy.portOutsideEphemeralRange())
    let port = first.port
    // The next server comes up while the client backs off: in its pause before the first retry.
    let restarted = Mutex<RunningServer?>(nil)
    let configuration = ClientConfiguration(retrySleep: { _ in
      guard restarted.withLock({ $0 == nil }) else { return }
      let server = try await RunningServer.start(port: port)
      restarted.withLock { $0 = server }
    })
    try await withTestClient(port: port, configuration: configuration) { client in
      #expect(try await client.health.check().status == .serving)
      await first.stop()
      let answer = try await client.unary(TestService.idempotentUnary, .init(service: "echo:back"))
      #expect(answer.service == "back")
      let server = try #require(restarted.withLock { $0 })
      #expect(server.probe.started == 1)
      await server.stop()
    }
  }

  // MARK: Graceful drain

  @Test("graceful drain: GOAWAY, new calls UNAVAILABLE, calls in flight finish, then close")
  func drain_letsCallsFinish() async throws {
    // The grace period is a hang bound here: the gated call must finish, however long the
    // test waits for a thread before it opens the gate.
    var configuration = ServerConfiguration()
    configuration.shutdownGracePeriod = hangBound
    let running = try await RunningServer.start(configuration)
    let raw = try await RawConnection.connect(port: running.port)
    try await withTestClient(port: running.port) { watcher in
      var statuses = try await watcher.health.watch().makeAsyncIterator()
      #expect(try await statuses.next()?.status == .serving)

      // Held until the test has seen the drain refuse a new call.
      try await raw.send(Raw.request(1, "gate:drain:finished"))
      #expect(await running.probe.wait { $0.started == 1 })
      running.server.beginGracefulShutdown()

      let goAway = try #require(try await raw.readEnvelope())
      #expect(goAway.kind == .goaway)
      #expect(goAway.callID == 0)
      #expect(goAway.status?.code == .unavailable)
      #expect(goAway.status?.reason == "SERVER_SHUTTING_DOWN")
      #expect(try await statuses.next()?.status == .notServing)

      try await raw.send(Raw.request(2, "echo:too late"))
      let refused = try #require(try await raw.readEnvelope())
      #expect(refused.callID == 2)
      #expect(refused.status?.code == .unavailable)

      running.probe.open("drain")
      let finished = try #require(try await raw.readEnvelope())
      #expect(finished.callID == 1)
      #expect(finished.status?.code == .ok)
      #expect(Raw.text(finished) == "finished")
      #expect(try await raw.readUntilClosed().isEmpty)
    }
    #expect(await running.finishes(within: hangBound))
    await #expect(throws: (any Error).self) {
      _ = try await RawConnection.connect(port: running.port)
    }
  }

  @Test("a request sent just after GOAWAY on an idle connection is answered UNAVAILABLE")
  func drain_answersLateRequests() throws {
    let connection = try EmbeddedServerConnection(server: embeddedTestServer())
    try connection.receive(Raw.request(1, "echo:before"))
    #expect(Raw.text(try connection.sent().first) == "before")
    connection.connection.beginDrain()
    let goAway = try connection.sent()
    #expect(goAway.map(\.kind) == [.goaway])
    #expect(goAway.first?.status?.reason == "SERVER_SHUTTING_DOWN")
    // A request on its way when GOAWAY left arrives within the linger after it.
    connection.advance(by: ServerConnectionHandler.drainLinger - .milliseconds(1))
    try connection.receive(Raw.request(2, "echo:after"))
    let refused = try #require(try connection.sent().first)
    #expect(refused.callID == 2)
    #expect(refused.status?.code == .unavailable)
    #expect(refused.status?.reason == "SERVER_SHUTTING_DOWN")
    #expect(connection.isOpen)
    // With no call open, the connection closes when the linger ends.
    connection.advance(by: .milliseconds(1))
    #expect(!connection.isOpen)
    try connection.finish()
  }

  @Test("calls still running when the grace period ends get UNAVAILABLE and are stopped")
  func drain_graceExpires() throws {
    let probe = HandlerProbe()
    let connection = try EmbeddedServerConnection(
      server: embeddedTestServer(
        ServerConfiguration(shutdownGracePeriod: .seconds(2)), probe: probe))
    try connection.receive(Raw.request(1, "gate:never"))
    #expect(probe.started == 1)
    connection.connection.beginDrain()
    #expect(try connection.sent().map(\.kind) == [.goaway])
    connection.advance(by: .milliseconds(1999))
    #expect(try connection.sent().isEmpty)
    #expect(connection.isOpen)
    connection.advance(by: .milliseconds(1))
    let ended = try connection.sent()
    #expect(ended.map(\.kind) == [.response])
    #expect(ended.first?.status?.code == .unavailable)
    #expect(ended.first?.status?.reason == "SHUTDOWN_GRACE_EXPIRED")
    #expect(!connection.isOpen)
    // The handler was stopped, not left running.
    connection.loop.run()
    #expect(probe.cancelled == 1)
    try connection.finish()
  }
}

/// Closes the connection when the first bytes arrive.
private final class HangUpOnRead: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    context.close(promise: nil)
  }
}

/// Polls `condition` until it holds. `hangBound` only bounds a failure: the condition decides
/// the pass.
func waitUntil(_ condition: () -> Bool) async -> Bool {
  let end = ContinuousClock.now + hangBound
  while ContinuousClock.now < end {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(5))
  }
  return condition()
}
