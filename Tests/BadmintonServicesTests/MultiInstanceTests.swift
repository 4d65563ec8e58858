import BadmintonAPI
import BadmintonPostgres
import BadmintonRPC
import BadmintonStore
import BadmintonStoreSQL
import Foundation
import PostgresTestCluster
import Synchronization
import Testing

/// `badminton-server` processes serving one PostgreSQL database (`--database`), each with a
/// client of its own.
///
/// An instance learns of the others' commits from the database's change log. A write (one that
/// changes a row) through an instance returns only once that instance has handed on every change
/// committed before it, on any instance; the tests make such a write (`caughtUp`) where they
/// must know that an instance has seen what another committed, rather than wait for time.
// PostgreSQL only: several instances on one database is what the PostgreSQL store is for; the
// embedded store serves one process.
@Suite("Several server instances on one PostgreSQL database")
struct MultiInstanceTests {
  static let shanghai = GeoPoint(latitude: 31.2304, longitude: 121.4737)

  /// Tomorrow in UTC, on the real clock the processes run on.
  static var tomorrow: LocalDate {
    var utc = Calendar(identifier: .gregorian)
    utc.timeZone = TimeZone(identifier: "UTC")!
    let day = utc.dateComponents([.year, .month, .day], from: Date().addingTimeInterval(86_400))
    return LocalDate(year: Int32(day.year!), month: Int32(day.month!), day: Int32(day.day!))
  }

  /// Singles tomorrow from `start` to `end` (minutes, UTC) in central Shanghai.
  static func slot(_ start: Int32, _ end: Int32) -> PostAvailabilityRequest {
    PostAvailabilityRequest(
      mode: .singles, date: tomorrow, startMinute: start, endMinute: end, timeZone: "UTC",
      location: shanghai, radiusMiles: 10)
  }

  /// A server process on the shared database and a client connected to it.
  struct Instance {
    let server: ServerProcess
    let client: RPCClient

    /// Starts an instance on `database` with `arguments` added.
    static func start(database: String, _ arguments: [String] = []) throws -> Instance {
      let server = try ServerProcess.start(["--database", database] + arguments)
      return Instance(server: server, client: RPCClient(host: "127.0.0.1", port: server.port))
    }

    /// Closes the client and kills the process.
    func close() async {
      await client.close()
      server.kill()
    }
  }

  /// A registered, logged-in player.
  struct Player {
    let id: Int64
    let phone: String
    let token: String
    var options: CallOptions { CallOptions(bearerToken: token) }
  }

  /// Registers and logs in a player through `client`.
  static func player(_ nickname: String, through client: RPCClient) async throws -> Player {
    let phone = PlayerWorld.newPhone()
    let registered = try await client.accounts.register(
      RegisterRequest(phone: phone, nickname: nickname, password: "correct horse", selfLevel: 5))
    let login = try await client.accounts.login(
      LoginRequest(phone: phone, password: "correct horse"))
    return Player(id: registered.userID, phone: phone, token: login.token)
  }

  private static let writes = Atomic<Int>(0)

  /// Returns once `client`'s instance has every change committed before the call, by making a
  /// write through it as `watcher` (a player who logged in through that instance).
  static func caughtUp(_ client: RPCClient, watcher: Player) async throws {
    let number = writes.add(1, ordering: .relaxed).newValue
    _ = try await client.players.updateProfile(
      UpdateProfileRequest(nickname: "Watcher \(number)"), options: watcher.options)
  }

  /// Runs `body` with `count` instances on a new database, closing them after.
  static func withInstances<T>(
    _ count: Int, _ body: (_ database: String, [Instance]) async throws -> T
  ) async throws -> T {
    let database = try PostgresTestCluster.makeDatabase()
    var instances: [Instance] = []
    do {
      for _ in 0..<count { instances.append(try Instance.start(database: database)) }
      let result = try await body(database, instances)
      for instance in instances { await instance.close() }
      return result
    } catch {
      for instance in instances { await instance.close() }
      throw error
    }
  }

  @Test(
    "players on two instances find each other, match, message live, and a block or a logout through one holds on the other"
  )
  func twoInstances_serveOnePlayerBase() async throws {
    try await Self.withInstances(2) { _, instances in
      let (one, two) = (instances[0], instances[1])
      let ann = try await Self.player("Ann", through: one.client)
      let bo = try await Self.player("Bo", through: two.client)
      let watcher = try await Self.player("Watcher", through: two.client)
      let here = UpdateLocationRequest(
        latitude: Self.shanghai.latitude, longitude: Self.shanghai.longitude)
      _ = try await one.client.players.updateLocation(here, options: ann.options)
      _ = try await two.client.players.updateLocation(here, options: bo.options)
      var annEvents = try await one.client.events.subscribe(options: ann.options)
        .makeAsyncIterator()
      var boEvents = try await two.client.events.subscribe(options: bo.options)
        .makeAsyncIterator()

      // Ann posts through instance 1; Bo's post through instance 2 returns once instance 2 has
      // Ann's, so his search finds it.
      let annSlot = try await one.client.matching.postAvailability(
        Self.slot(600, 720), options: ann.options)
      let boSlot = try await two.client.matching.postAvailability(
        Self.slot(600, 720), options: bo.options)
      let found = try await two.client.matching.findMatches(
        .init(availabilityID: boSlot.id), options: bo.options)
      #expect(found.candidates.map(\.availabilityID) == [annSlot.id])
      #expect(found.candidates.map(\.userID) == [ann.id])

      // Bo proposes through instance 2; Ann hears of it on instance 1 and accepts there.
      let proposal = try await two.client.matching.proposeMatch(
        .init(availabilityID: boSlot.id, candidateAvailabilityIDs: [annSlot.id]),
        options: bo.options)
      let received = try #require(
        try await next(&annEvents) {
          if case .proposalReceived(let received)? = $0 { received } else { nil }
        })
      #expect(received.proposal.id == proposal.id)
      let accepted = try await one.client.matching.respondToProposal(
        .init(proposalID: proposal.id, accept: true), options: ann.options)
      #expect(accepted.state == .accepted && accepted.matchID != 0)
      let annConfirmed = try #require(
        try await next(&annEvents) {
          if case .matchConfirmed(let changed)? = $0 { changed.match } else { nil }
        })
      let boConfirmed = try #require(
        try await next(&boEvents) {
          if case .matchConfirmed(let changed)? = $0 { changed.match } else { nil }
        })
      #expect(annConfirmed.id == accepted.matchID && boConfirmed.id == accepted.matchID)

      // Messages both ways arrive live on the other instance.
      let toBo = try await one.client.messages.sendMessage(
        .init(recipientID: bo.id, clientMessageID: "ann-1", text: "See you at 10"),
        options: ann.options)
      let atBo = try #require(
        try await next(&boEvents) {
          if case .messageReceived(let message)? = $0 { message } else { nil }
        })
      #expect(atBo.id == toBo.id && atBo.text == "See you at 10" && atBo.senderID == ann.id)
      let toAnn = try await two.client.messages.sendMessage(
        .init(recipientID: ann.id, clientMessageID: "bo-1", text: "Court 3"), options: bo.options)
      let atAnn = try #require(
        try await next(&annEvents) {
          if case .messageReceived(let message)? = $0 { message } else { nil }
        })
      #expect(atAnn.id == toAnn.id && atAnn.text == "Court 3" && atAnn.senderID == bo.id)

      // A block through instance 1 hides the two from each other on instance 2: as match
      // candidates both ways and in NearbyPlayers.
      let annLater = try await one.client.matching.postAvailability(
        Self.slot(840, 960), options: ann.options)
      let boLater = try await two.client.matching.postAvailability(
        Self.slot(840, 960), options: bo.options)
      #expect(
        try await two.client.matching.findMatches(
          .init(availabilityID: boLater.id), options: bo.options
        ).candidates.map(\.availabilityID) == [annLater.id])
      #expect(
        try await two.client.players.nearbyPlayers(options: bo.options).players.map(\.userID)
          == [ann.id])
      _ = try await one.client.friends.block(.init(userID: bo.id), options: ann.options)
      try await Self.caughtUp(two.client, watcher: watcher)
      #expect(
        try await two.client.matching.findMatches(
          .init(availabilityID: boLater.id), options: bo.options
        ).candidates.isEmpty)
      #expect(
        try await two.client.matching.findMatches(
          .init(availabilityID: annLater.id), options: ann.options
        ).candidates.isEmpty)
      #expect(
        try await two.client.players.nearbyPlayers(options: bo.options).players.isEmpty)
      #expect(
        try await two.client.players.nearbyPlayers(options: ann.options).players.isEmpty)

      // A session made through instance 1 works on instance 2; its logout through instance 1
      // makes instance 2 refuse it.
      let session = try await one.client.accounts.login(
        LoginRequest(phone: ann.phone, password: "correct horse"))
      let options = CallOptions(bearerToken: session.token)
      try await Self.caughtUp(two.client, watcher: watcher)
      #expect(try await two.client.players.getMyProfile(options: options).userID == ann.id)
      _ = try await one.client.accounts.logout(options: options)
      try await Self.caughtUp(two.client, watcher: watcher)
      let refused = await rpcError {
        _ = try await two.client.players.getMyProfile(options: options)
      }
      #expect(refused?.code == .unauthenticated)
      // Ann's first session is untouched.
      #expect(try await two.client.players.getMyProfile(options: ann.options).userID == ann.id)
    }
  }

  @Test(
    "--database: the server logs the store it serves from without the password, and stops cleanly")
  func database_isLoggedWithoutItsPassword() async throws {
    let database = try PostgresTestCluster.makeDatabase()
    // The test cluster trusts local connections, so any password is let in.
    let withPassword = database.replacingOccurrences(
      of: "://badminton@", with: "://badminton:s3cret@")
    let server = try ServerProcess.start(["--database", withPassword, "--log-level", "info"])
    defer { server.kill() }
    let client = RPCClient(host: "127.0.0.1", port: server.port)
    #expect(try await client.health.check().status == .serving)
    await client.close()
    #expect(server.stop() == 0)
    let log = server.errors
    #expect(log.contains("serving from PostgreSQL"))
    #expect(log.contains("badminton:***@localhost:5432/"))
    #expect(!log.contains("s3cret"))
  }

  @Test(
    "a suspension written on the database holds on every instance: Login and sessions refused, the live stream ended, FindMatches leaves the player out; lifted, all comes back"
  )
  func suspension_holdsOnEveryInstance() async throws {
    try await Self.withInstances(2) { database, instances in
      let (one, two) = (instances[0], instances[1])
      let rowdy = try await Self.player("Rowdy", through: two.client)
      let ann = try await Self.player("Ann", through: one.client)
      let watcher = try await Self.player("Watcher", through: two.client)
      let rowdySlot = try await two.client.matching.postAvailability(
        Self.slot(600, 720), options: rowdy.options)
      let annSlot = try await one.client.matching.postAvailability(
        Self.slot(600, 720), options: ann.options)
      var stream = try await two.client.events.subscribe(options: rowdy.options)
        .makeAsyncIterator()

      // What the console's Suspend does, through a store of its own on the shared database:
      // the instances learn of it from the change log only.
      let store = try await PostgresStore.open(.init(url: database, poolSize: 3))
      let now = Int64(Date().timeIntervalSince1970 * 1000)
      try await store.suspend(
        SuspensionRecord(
          playerID: rowdy.id, untilUnixMs: now + 86_400_000, reason: "abuse",
          administratorID: ann.id, atUnixMs: now))
      // The stream on instance 2 ends as instance 2 reads the suspension.
      let ended = await rpcError { while try await stream.next() != nil {} }
      #expect(ended?.reason == "ACCOUNT_SUSPENDED")
      try await Self.caughtUp(two.client, watcher: watcher)
      try await Self.caughtUp(one.client, watcher: ann)
      for client in [one.client, two.client] {
        let call = await rpcError {
          _ = try await client.players.getMyProfile(options: rowdy.options)
        }
        #expect(call?.code == .permissionDenied && call?.reason == "ACCOUNT_SUSPENDED")
        let login = await rpcError {
          _ = try await client.accounts.login(
            LoginRequest(phone: rowdy.phone, password: "correct horse"))
        }
        #expect(login?.reason == "ACCOUNT_SUSPENDED")
      }
      let during = try await one.client.matching.findMatches(
        .init(availabilityID: annSlot.id), options: ann.options)
      #expect(during.candidates.isEmpty)

      try await store.liftSuspension(
        playerID: rowdy.id, note: "", administratorID: ann.id,
        atUnixMs: Int64(Date().timeIntervalSince1970 * 1000))
      await store.close()
      try await Self.caughtUp(one.client, watcher: ann)
      try await Self.caughtUp(two.client, watcher: watcher)
      let after = try await one.client.matching.findMatches(
        .init(availabilityID: annSlot.id), options: ann.options)
      #expect(after.candidates.map(\.availabilityID) == [rowdySlot.id])
      _ = try await two.client.players.getMyProfile(options: rowdy.options)
    }
  }

  @Test("--database naming a database the server does not have stops the start, naming it")
  func unknownDatabase_stopsTheStart() throws {
    let database = try PostgresTestCluster.makeDatabase()
    let query = try #require(database.range(of: "?"))
    let path = try #require(database[..<query.lowerBound].range(of: "/", options: .backwards))
    let unknown =
      database[..<path.upperBound] + "no_such_database" + database[query.lowerBound...]
    let failure = #expect(throws: ServerProcess.DidNotStart.self) {
      _ = try ServerProcess.start(["--database", String(unknown)])
    }
    #expect(failure?.status == 1)
    #expect(failure?.errors.contains(#"database "no_such_database" does not exist"#) == true)
  }

  @Test("two proposals for one availability accepted at once through two instances make one match")
  func crossInstanceAcceptances_makeOneMatch() async throws {
    try await Self.withInstances(2) { _, instances in
      let (one, two) = (instances[0], instances[1])
      let ann = try await Self.player("Ann", through: one.client)
      let bo = try await Self.player("Bo", through: one.client)
      let cy = try await Self.player("Cy", through: two.client)
      let watchers = (
        try await Self.player("Watcher 1", through: one.client),
        try await Self.player("Watcher 2", through: two.client)
      )
      // Each round: Bo and Cy post the same slot, Ann too, and Ann proposes to each of them for
      // her one availability; Bo accepts through instance 1 while Cy accepts through instance 2.
      for round in Int32(0)..<8 {
        let start = 480 + round * 90
        let boSlot = try await one.client.matching.postAvailability(
          Self.slot(start, start + 60), options: bo.options)
        let cySlot = try await two.client.matching.postAvailability(
          Self.slot(start, start + 60), options: cy.options)
        try await Self.caughtUp(one.client, watcher: watchers.0)
        let annSlot = try await one.client.matching.postAvailability(
          Self.slot(start, start + 60), options: ann.options)
        let toBo = try await one.client.matching.proposeMatch(
          .init(availabilityID: annSlot.id, candidateAvailabilityIDs: [boSlot.id]),
          options: ann.options)
        let toCy = try await one.client.matching.proposeMatch(
          .init(availabilityID: annSlot.id, candidateAvailabilityIDs: [cySlot.id]),
          options: ann.options)
        try await Self.caughtUp(two.client, watcher: watchers.1)
        async let boAnswer = one.client.matching.respondToProposal(
          .init(proposalID: toBo.id, accept: true), options: bo.options)
        async let cyAnswer = two.client.matching.respondToProposal(
          .init(proposalID: toCy.id, accept: true), options: cy.options)
        let answers = [try await boAnswer, try await cyAnswer]
        #expect(answers.map(\.state).filter { $0 == .accepted }.count == 1, "round \(round)")
        #expect(answers.map(\.state).filter { $0 == .lapsed }.count == 1, "round \(round)")
        let winner = try #require(answers.first { $0.state == .accepted })
        // Both instances list the one match, once they have every commit.
        try await Self.caughtUp(one.client, watcher: watchers.0)
        try await Self.caughtUp(two.client, watcher: watchers.1)
        for client in [one.client, two.client] {
          let matches = try await client.matching.listMyMatches(options: ann.options).matches
            .filter { $0.slot == winner.slot }
          #expect(matches.map(\.id) == [winner.matchID], "round \(round)")
        }
      }
    }
  }

  @Test(
    "SIGKILL of one instance: the other keeps serving, every acknowledged write stays, and the restarted instance answers as a fresh one does"
  )
  func killedInstance_losesNoAcknowledgedWrite() async throws {
    let database = try PostgresTestCluster.makeDatabase()
    var instances = [
      try Instance.start(database: database), try Instance.start(database: database),
    ]
    do {
      try await Self.killAndRestart(database: database, &instances)
    } catch {
      for instance in instances { await instance.close() }
      throw error
    }
    for instance in instances { await instance.close() }
  }

  /// The steps of the SIGKILL test, on `instances` (two at first; the restarted and the fresh
  /// one are added).
  private static func killAndRestart(database: String, _ instances: inout [Instance])
    async throws
  {
    let (one, two) = (instances[0], instances[1])
    let recipient = try await player("Rae", through: two.client)
    var senders: [Player] = []
    for index in 0..<4 {
      let through = index.isMultiple(of: 2) ? one.client : two.client
      let sender = try await player("Sender \(index)", through: through)
      _ = try await through.matching.postAvailability(slot(600, 720), options: sender.options)
      senders.append(sender)
    }
    let watchers = (
      try await player("Watcher 1", through: one.client),
      try await player("Watcher 2", through: two.client)
    )
    try await caughtUp(one.client, watcher: watchers.0)

    // Every sender sends through both instances in turn, on clients that do not retry; once a
    // few dozen sends are acknowledged instance 1 is killed, and each sender's second half
    // starts after the kill.
    let writers = [one, two].map {
      RPCClient(
        host: "127.0.0.1", port: $0.server.port,
        configuration: ClientConfiguration(retry: .none))
    }
    let progress = Progress()
    let (reports, report) = AsyncStream.makeStream(of: Void.self)
    let killAfter = 24
    let killer = Task {
      for await _ in reports {
        if progress.state.withLock({ $0.acknowledged.count >= killAfter || $0.waiting == 4 }) {
          break
        }
      }
      one.server.kill()
      progress.state.withLock { $0.killed = true }
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (index, sender) in senders.enumerated() {
        group.addTask {
          for step in 0..<20 {
            if step == 10 {
              progress.state.withLock { $0.waiting += 1 }
              report.yield()
              await killer.value
            }
            let via = (step + index) % 2
            let id = "sender-\(index)-\(step)"
            do {
              let sent = try await writers[via].messages.sendMessage(
                .init(recipientID: recipient.id, clientMessageID: id, text: "message \(id)"),
                options: sender.options)
              progress.state.withLock {
                $0.acknowledged[sent.id] = id
                if via == 1 && $0.killed { $0.acknowledgedByTwoAfterKill += 1 }
              }
              report.yield()
            } catch {
              if via == 1 { progress.state.withLock { $0.failedOnTwo.append("\(id): \(error)") } }
            }
          }
        }
      }
      try await group.waitForAll()
    }
    report.finish()
    for writer in writers { await writer.close() }
    let outcome = progress.state.withLock { $0 }
    #expect(outcome.killed)
    #expect(outcome.failedOnTwo.isEmpty, "\(outcome.failedOnTwo)")
    #expect(outcome.acknowledgedByTwoAfterKill >= 20)
    // The sends through instance 1 after the kill (five per sender) were refused.
    #expect(outcome.acknowledged.count <= 60)

    // Every acknowledged message is in the database, read back through instance 2.
    let stored = try await two.client.messages.syncMessages(
      .init(afterMessageID: 0, limit: 500), options: recipient.options
    ).messages
    let storedIDs = Dictionary(uniqueKeysWithValues: stored.map { ($0.id, $0.clientMessageID) })
    for (id, clientID) in outcome.acknowledged {
      #expect(storedIDs[id] == clientID, "acknowledged \(clientID) (\(id)) is missing")
    }

    // Instance 1 restarts on the same database while instance 2 takes more writes, which the
    // restarted instance follows.
    await one.close()
    instances[0] = try Instance.start(database: database)
    let again = instances[0]
    for (index, sender) in senders.enumerated() {
      _ = try await two.client.players.updateProfile(
        UpdateProfileRequest(nickname: "Sender \(index) later"), options: sender.options)
    }
    let wanted = try await two.client.matching.postAvailability(
      slot(600, 720), options: recipient.options)
    _ = try await two.client.messages.sendMessage(
      .init(recipientID: recipient.id, clientMessageID: "last", text: "the last one"),
      options: senders[0].options)
    try await caughtUp(again.client, watcher: watchers.0)
    instances.append(try Instance.start(database: database))
    let fresh = instances[2]

    // The restarted instance, the one that ran through, and a fresh one answer alike.
    var answers: [Answers] = []
    for instance in [again, two, fresh] {
      answers.append(
        try await Answers.read(
          through: instance.client, as: recipient, players: senders + [recipient],
          availability: wanted.id))
    }
    #expect(answers[0] == answers[2])
    #expect(answers[1] == answers[2])
    #expect(
      Array(answers[2].profiles.map(\.nickname).prefix(4)) == (0..<4).map { "Sender \($0) later" })
    #expect(answers[2].candidates.count == 4)
    let received = Set(
      answers[2].events.compactMap { event -> Int64? in
        if case .messageReceived(let message)? = event.body { message.id } else { nil }
      })
    #expect(received.isSuperset(of: outcome.acknowledged.keys))
  }

  /// How the writes of the SIGKILL test went, shared by the senders and the task that kills.
  final class Progress: Sendable {
    struct State {
      /// Message ids acknowledged, with their client message ids.
      var acknowledged: [Int64: String] = [:]
      /// Sends through instance 2 acknowledged after the kill.
      var acknowledgedByTwoAfterKill = 0
      /// Sends through instance 2 that failed, with their errors.
      var failedOnTwo: [String] = []
      /// Senders waiting for the kill.
      var waiting = 0
      /// Whether instance 1 is dead.
      var killed = false
    }
    let state = Mutex(State())
  }

  /// What an instance answers a player about the others: the reads that come from its
  /// projections (profiles, match candidates) and the player's inbox.
  struct Answers: Equatable {
    var profiles: [Profile]
    var candidates: [MatchCandidate]
    var events: [Event]

    /// Reads them through `client` as `player`: the profiles of `players`, the candidates for
    /// `availability`, and the inbox up to its message "last".
    static func read(
      through client: RPCClient, as player: Player, players: [Player], availability: Int64
    ) async throws -> Answers {
      var profiles: [Profile] = []
      for other in players {
        profiles.append(
          try await client.players.getProfile(.init(userID: other.id), options: player.options))
      }
      let candidates = try await client.matching.findMatches(
        .init(availabilityID: availability), options: player.options
      ).candidates
      var events: [Event] = []
      var stream = try await client.events.subscribe(options: player.options).makeAsyncIterator()
      while let event = try await stream.next() {
        events.append(event)
        if case .messageReceived(let message)? = event.body, message.clientMessageID == "last" {
          break
        }
      }
      return Answers(profiles: profiles, candidates: candidates, events: events)
    }
  }
}
