import BadmintonAPI
import BadmintonClient
import BadmintonRPC
import Foundation
import Testing

/// Runs `body` against a fresh in-process server with files in a fresh folder, and stops both.
func withServer(
  maximumBufferedEvents: Int = 256,
  _ body: (TestServer, TemporaryFolder) async throws -> Void
) async throws {
  let server = try await TestServer.start(maximumBufferedEvents: maximumBufferedEvents)
  let folder = TemporaryFolder()
  do {
    try await body(server, folder)
  } catch {
    await server.shutdown()
    folder.remove()
    throw error
  }
  await server.shutdown()
  folder.remove()
}

/// A message from the session's player to `recipient`.
func message(to recipient: TestServer.Player, _ text: String) -> SendMessageRequest {
  SendMessageRequest(recipientID: recipient.id, clientMessageID: text, text: text)
}

@Suite("Client session", .serialized)
struct SessionTests {
  // MARK: Signing in

  @Test("a login is kept in the token store: a new session object continues without the password")
  func token_survivesNewSession() async throws {
    try await withServer { server, folder in
      let player = try await server.player()
      let first = try BadmintonSession(
        configuration: configuration(port: server.port, folder: folder))
      #expect(first.status.connection == .signedOut)
      await #expect(throws: ClientError.signedOut) {
        _ = try await first.call(Players.getMyProfile, GetMyProfileRequest())
      }
      let login = try await first.login(phone: player.phone, password: player.password)
      #expect(first.status.connection == .connected)
      #expect(first.status.userID == player.id)
      await first.close()

      let stored = try FileTokenStore(path: folder.path + "/session.json").load()
      #expect(stored?.token == login.token)
      let second = try BadmintonSession(
        configuration: configuration(port: server.port, folder: folder))
      #expect(second.status.connection != .signedOut)
      #expect(second.status.userID == player.id)
      let profile = try await second.call(Players.getMyProfile, GetMyProfileRequest())
      #expect(profile.userID == player.id)
      try await waitForStatus(second) { $0.connection == .connected }
      await second.close()
    }
  }

  @Test("a stored token past its end counts as none: the session starts signed out")
  func expiredToken_signsOut() async throws {
    let folder = TemporaryFolder()
    defer { folder.remove() }
    let store = InMemoryTokenStore(
      StoredSession(token: "old", userID: 7, expiresAtUnixMs: 1000, lastEventSequence: 3))
    var configuration = SessionConfiguration(
      host: "127.0.0.1", port: 9, tokenStore: store, queuePath: folder.path + "/writes.queue")
    configuration.environment = SessionEnvironment(nowUnixMs: { 1000 })
    let session = try BadmintonSession(configuration: configuration)
    #expect(session.status == SessionStatus(connection: .signedOut, pendingWrites: 0, userID: 7))
    #expect(try store.load()?.token == nil)
    #expect(try store.load()?.lastEventSequence == 3)
    await #expect(throws: ClientError.signedOut) {
      _ = try await session.call(Players.getMyProfile, GetMyProfileRequest())
    }
    await session.close()
  }

  @Test("UNAUTHENTICATED signs the session out; the write waits in the queue until the next login")
  func unauthenticated_signsOut_writeWaits() async throws {
    try await withServer { server, folder in
      let player = try await server.player()
      let friend = try await server.player()
      let session = try BadmintonSession(
        configuration: configuration(port: server.port, folder: folder))
      let login = try await session.login(phone: player.phone, password: player.password)
      // The server ends the session behind the app's back.
      _ = try await server.client.accounts.logout(options: CallOptions(bearerToken: login.token))
      let write = Task { try await session.write(Messages.sendMessage, message(to: friend, "hi")) }
      try await waitForStatus(session) { $0.connection == .signedOut && $0.pendingWrites == 1 }
      #expect(try FileTokenStore(path: folder.path + "/session.json").load()?.token == nil)
      #expect(try await server.messageTexts(of: friend, with: player) == [])

      try await session.login(phone: player.phone, password: player.password)
      let sent = try await write.value
      #expect(sent.text == "hi")
      try await waitForStatus(session) { $0.connection == .connected && $0.pendingWrites == 0 }
      #expect(try await server.messageTexts(of: friend, with: player) == ["hi"])
      await session.close()
    }
  }

  // MARK: Reconnecting

  @Test(
    "while the server is unreachable the session backs off by gRPC's ceilings, then starts over")
  func backoff_followsCeilings_andResets() async throws {
    try await withServer { server, folder in
      let player = try await server.player()
      try FileTokenStore(path: folder.path + "/session.json").save(server.storedSession(of: player))
      await server.stop()
      let sleeper = RecordingSleeper()
      let session = try BadmintonSession(
        configuration: configuration(port: server.port, folder: folder, sleeper: sleeper) {
          0.5
        })
      let backoff = ConnectionBackoff()
      let expected = (0..<6).map { backoff.delay(afterFailures: $0, random: 0.5) }
      let sixPauses = try await withLimit {
        while sleeper.pauses.count < 6 { try await Task.sleep(for: .milliseconds(5)) }
        return true
      }
      #expect(sixPauses == true)
      #expect(Array(sleeper.pauses.prefix(6)) == expected)
      #expect([.offline, .connecting].contains(session.status.connection))

      try await server.restart()
      try await waitForStatus(session) { $0.connection == .connected }
      let before = sleeper.pauses.count
      await server.stop()
      let paused = try await withLimit {
        while sleeper.pauses.count == before { try await Task.sleep(for: .milliseconds(5)) }
        return true
      }
      #expect(paused == true)
      // A success resets the count: the first pause after it is the first ceiling's share.
      #expect(sleeper.pauses[before] == expected[0])
      await session.close()
    }
  }

  // MARK: The queue

  @Test("a write queued while the server is unreachable is sent by a new session once it is up")
  func queuedWrite_survivesNewSession() async throws {
    try await withServer { server, folder in
      let player = try await server.player()
      let friend = try await server.player()
      try FileTokenStore(path: folder.path + "/session.json").save(server.storedSession(of: player))
      await server.stop()
      let offline = try BadmintonSession(
        configuration: configuration(
          port: server.port, folder: folder, sleeper: RecordingSleeper(real: nil)))
      try await waitForStatus(offline) { $0.connection == .offline }
      let key = try await offline.enqueue(Messages.sendMessage, message(to: friend, "hello"))
      #expect(offline.status.pendingWrites == 1)
      await offline.close()

      try await server.restart()
      let online = try BadmintonSession(
        configuration: configuration(port: server.port, folder: folder))
      #expect(online.status.pendingWrites == 1)
      let answered = try await outcomes(online, count: 1)
      #expect(answered.map(\.key) == [key])
      #expect(answered.first?.methodPath == Messages.sendMessage.path)
      #expect(try answered.first?.response(of: Messages.sendMessage)?.text == "hello")
      try await waitForStatus(online) { $0.pendingWrites == 0 }
      #expect(try await server.messageTexts(of: friend, with: player) == ["hello"])
      await online.close()
      let file = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/writes.queue"))
      #expect(file.isEmpty)
    }
  }

  @Test("queued writes are sent one at a time in the order they were made")
  func queuedWrites_inOrder() async throws {
    try await withServer { server, folder in
      let player = try await server.player()
      let friend = try await server.player()
      let store = InMemoryTokenStore(server.storedSession(of: player))
      var offline = configuration(port: server.port, folder: folder)
      offline.tokenStore = store
      await server.stop()
      let first = try BadmintonSession(configuration: offline)
      let texts = (0..<8).map { "message \($0)" }
      var keys: [String] = []
      for text in texts {
        keys.append(try await first.enqueue(Messages.sendMessage, message(to: friend, text)))
      }
      #expect(await first.queuedWrites().map(\.key) == keys)
      await first.close()

      try await server.restart()
      let second = try BadmintonSession(configuration: offline)
      // One caller waits as well: its write goes after the queued ones.
      let last = try await second.write(Messages.sendMessage, message(to: friend, "last"))
      let answered = try await outcomes(second, count: texts.count)
      #expect(answered.map(\.key) == keys)
      let sent = try answered.map { try $0.response(as: DirectMessage.self) }
      #expect(sent.map(\.text) == texts)
      #expect(sent.map(\.id) == sent.map(\.id).sorted())
      #expect(sent.last!.id < last.id)
      #expect(try await server.messageTexts(of: friend, with: player) == texts + ["last"])
      await second.close()
    }
  }

  @Test("a definite error leaves the queue and reaches the caller; the next write goes on")
  func definiteError_reachesCaller() async throws {
    try await withServer { server, folder in
      let player = try await server.player()
      let friend = try await server.player()
      let session = try BadmintonSession(
        configuration: configuration(port: server.port, folder: folder))
      try await session.login(phone: player.phone, password: player.password)
      let refused = await rpcError {
        _ = try await session.write(
          Messages.sendMessage,
          SendMessageRequest(recipientID: friend.id, clientMessageID: "x", text: ""))
      }
      #expect(refused?.code == .invalidArgument)
      #expect(session.status.pendingWrites == 0)
      let sent = try await session.write(Messages.sendMessage, message(to: friend, "after"))
      #expect(sent.text == "after")
      await #expect(throws: ClientError.notAWrite(Players.getMyProfile.path)) {
        _ = try await session.write(Players.getMyProfile, GetMyProfileRequest())
      }
      await session.close()
    }
  }

  @Test("a full queue refuses the next write with a clear error; writes queue while signed out")
  func fullQueue_refuses() async throws {
    let folder = TemporaryFolder()
    defer { folder.remove() }
    var configuration = configuration(port: 9, folder: folder)
    configuration.maximumQueuedWrites = 2
    let session = try BadmintonSession(configuration: configuration)
    let recipient = TestServer.Player(id: 2, phone: "", password: "", token: "")
    try await session.enqueue(Messages.sendMessage, message(to: recipient, "a"))
    try await session.enqueue(Messages.sendMessage, message(to: recipient, "b"))
    await #expect(throws: ClientError.queueFull(limit: 2)) {
      try await session.enqueue(Messages.sendMessage, message(to: recipient, "c"))
    }
    #expect(session.status == SessionStatus(connection: .signedOut, pendingWrites: 2, userID: nil))
    await session.close()
  }

  @Test(
    "what a failed attempt means for a write",
    arguments: [
      (RPCError.connectFailed("x"), WriteVerdict.retryAfterReconnect),
      (RPCError.connectionLost, .retryAfterReconnect),
      (RPCError.serverShuttingDown, .retryAfterReconnect),
      (
        RPCError(code: .unavailable, reason: "DATABASE_UNAVAILABLE", message: .init(verbatim: "")),
        .retryAfterReconnect
      ),
      (RPCError.deadlineExceeded, .retryAfterReconnect),
      (RPCError.cancelled, .retryAfterReconnect),
      (RPCError.serverBusy, .retryAfter(.seconds(1))),
      (
        RPCError(
          code: .resourceExhausted, reason: "IDEMPOTENCY_KEYS_EXHAUSTED",
          message: .init(verbatim: ""), retryAfter: .seconds(30)), .retryAfter(.seconds(30))
      ),
      (
        RPCError(code: .resourceExhausted, reason: "QUOTA", message: .init(verbatim: "")),
        .definite
      ),
      (
        RPCError(code: .unauthenticated, reason: "SESSION_EXPIRED", message: .init(verbatim: "")),
        .signIn
      ),
      (
        RPCError(
          code: .failedPrecondition, reason: "IDEMPOTENCY_KEY_REUSED", message: .init(verbatim: "")),
        .definite
      ),
      (
        RPCError(
          code: .invalidArgument, reason: "IDEMPOTENCY_KEY_INVALID", message: .init(verbatim: "")),
        .definite
      ),
      (
        RPCError(code: .notFound, reason: "PLAYER_NOT_FOUND", message: .init(verbatim: "")),
        .definite
      ),
      (
        RPCError(code: .permissionDenied, reason: "BLOCKED", message: .init(verbatim: "")),
        .definite
      ),
      (
        RPCError(code: .alreadyExists, reason: "PHONE_TAKEN", message: .init(verbatim: "")),
        .definite
      ),
      (RPCError.internalError, .definite),
    ])
  func verdicts(error: RPCError, verdict: WriteVerdict) {
    #expect(WriteVerdict.of(error) == verdict)
  }

  // MARK: Events

  @Test("events resume after the server closes the connection: none twice, none missing")
  func events_resumeAfterServerRestart() async throws {
    try await withServer { server, folder in
      let sender = try await server.player()
      let player = try await server.player()
      let session = try BadmintonSession(
        configuration: configuration(port: server.port, folder: folder))
      try await session.login(phone: player.phone, password: player.password)
      for number in 1...3 {
        _ = try await server.client.messages.sendMessage(
          message(to: player, "before \(number)"), options: sender.options)
      }
      let early = try await events(session, count: 3)
      #expect(early.map(\.sequence) == [1, 2, 3])

      try await server.restart()
      for number in 1...3 {
        _ = try await server.client.messages.sendMessage(
          message(to: player, "after \(number)"), options: sender.options)
      }
      let late = try await events(session, count: 3)
      #expect(late.map(\.sequence) == [4, 5, 6])
      let texts = (early + late).compactMap { event -> String? in
        if case .messageReceived(let received)? = event.body { return received.text }
        return nil
      }
      #expect(texts == (1...3).map { "before \($0)" } + (1...3).map { "after \($0)" })
      #expect(
        try FileTokenStore(path: folder.path + "/session.json").load()?.lastEventSequence == 6)
      await session.close()
    }
  }

  @Test("a new session object resumes the events after the last one the app took")
  func events_resumeAcrossSessions() async throws {
    try await withServer { server, folder in
      let sender = try await server.player()
      let player = try await server.player()
      let first = try BadmintonSession(
        configuration: configuration(port: server.port, folder: folder))
      try await first.login(phone: player.phone, password: player.password)
      for number in 1...4 {
        _ = try await server.client.messages.sendMessage(
          message(to: player, "m\(number)"), options: sender.options)
      }
      #expect(try await events(first, count: 2).map(\.sequence) == [1, 2])
      await first.close()

      let second = try BadmintonSession(
        configuration: configuration(port: server.port, folder: folder))
      _ = try await server.client.messages.sendMessage(
        message(to: player, "m5"), options: sender.options)
      #expect(try await events(second, count: 3).map(\.sequence) == [3, 4, 5])
      await second.close()
    }
  }

  @Test("with tiny buffers on both sides every event still arrives once and in order")
  func events_tinyBuffers_onceInOrder() async throws {
    try await withServer(maximumBufferedEvents: 2) { server, folder in
      let sender = try await server.player()
      let player = try await server.player()
      var tiny = configuration(port: server.port, folder: folder)
      tiny.maximumBufferedEvents = 1
      let session = try BadmintonSession(configuration: tiny)
      try await session.login(phone: player.phone, password: player.password)
      try await waitForStatus(session) { $0.connection == .connected }
      for number in 1...40 {
        _ = try await server.client.messages.sendMessage(
          message(to: player, "burst \(number)"), options: sender.options)
      }
      #expect(try await events(session, count: 40).map(\.sequence) == Array(1...40))
      await session.close()
    }
  }
}
