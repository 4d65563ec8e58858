import BadmintonAPI
import BadmintonClient
import BadmintonRPC
import ChaosSupport
import Foundation
import Synchronization

/// One device of a player: a `BadmintonSession` through the proxy, with its files in a folder
/// of its own, the events it delivered, and the workload it drives, one operation at a time.
final class ChaosDevice: Sendable {
  let index: Int
  let player: ChaosPlayer
  let directory: URL
  /// The token and the event cursor: kept across app restarts, as the file would be.
  let tokenStore = InMemoryTokenStore()
  /// Every event sequence the session delivered, in order.
  let delivered = Mutex<[UInt64]>([])
  private let session = Mutex<BadmintonSession?>(nil)
  /// The answers the sessions handed over on `outcomes`, by key.
  private let outcomes = Mutex<[String: WriteOutcome]>([:])
  /// Tasks that end with the session: taking its events and its outcomes.
  private let followers = Mutex<[Task<Void, Never>]>([])
  private let keys = Atomic<Int>(0)
  private let random: Mutex<ChaosRandom>
  private let watchers = Mutex<[Task<Void, Never>]>([])
  private let port: Int
  private let seed: UInt64

  init(index: Int, player: ChaosPlayer, directory: URL, proxyPort: Int, seed: UInt64) {
    self.index = index
    self.player = player
    self.directory = directory
    self.port = proxyPort
    self.seed = seed
    self.random = Mutex(ChaosRandom(seed: seed ^ 0xD1CE, stream: UInt64(index)))
  }

  /// The session now.
  var current: BadmintonSession { session.withLock { $0! } }

  /// Opens the session (again, after an app restart) and starts taking its events and
  /// watching for a sign-out.
  func open(ledger: ChaosLedger) throws {
    var configuration = SessionConfiguration(
      host: "127.0.0.1", port: port, tokenStore: tokenStore,
      queuePath: directory.appendingPathComponent("writes.queue").path)
    // Short waits: the run is about what happens, not about how long the phone waits.
    configuration.backoff = ConnectionBackoff(
      base: .milliseconds(20), multiplier: 1.6, maximum: .milliseconds(300),
      minimumConnectTimeout: .seconds(5))
    configuration.callTimeout = .seconds(20)
    configuration.environment = SessionEnvironment(
      random: { [self] in random.withLock { Double.random(in: 0...1, using: &$0) } },
      // Never reused, across app restarts too.
      makeKey: { [self] in
        "chaos-\(seed)-d\(index)-\(keys.add(1, ordering: .relaxed).newValue)"
      })
    let session = try BadmintonSession(configuration: configuration)
    self.session.withLock { $0 = session }
    // Both end when the session closes, after what it handed over.
    let events = Task { [self] in
      for await event in session.events {
        delivered.withLock { $0.append(event.sequence) }
      }
    }
    let answers = Task { [self] in
      for await outcome in session.outcomes {
        outcomes.withLock { $0[outcome.key] = outcome }
      }
    }
    followers.withLock { $0 = [events, answers] }
    watchers.withLock { $0 = [] }
    if (try? tokenStore.load())??.token != nil { watchSignOut(ledger: ledger) }
  }

  /// Logs in again whenever the session is signed out (the server ended its session, which it
  /// should not), counting each time.
  private func watchSignOut(ledger: ChaosLedger) {
    let session = current
    let player = self.player
    let relogin = Task {
      for await status in session.statusUpdates() where status.connection == .signedOut {
        // The server ended the session (it should not): log in again until it works.
        while !Task.isCancelled {
          do {
            try await session.login(phone: player.phone, password: player.password)
            ledger.state.withLock { $0.relogins += 1 }
            break
          } catch ClientError.closed {
            return
          } catch {
            try? await Task.sleep(for: .milliseconds(20))
          }
        }
      }
    }
    watchers.withLock { $0.append(relogin) }
  }

  /// Logs in, through the proxy, until it works; then watches for a sign-out.
  func login(ledger: ChaosLedger) async throws {
    while true {
      do {
        try await current.login(phone: player.phone, password: player.password)
        watchSignOut(ledger: ledger)
        return
      } catch let error as RPCError where error.code == .unavailable {
        try await Task.sleep(for: .milliseconds(20))
      }
    }
  }

  /// Closes the session; its queue file and token stay for the next one.
  func close() async {
    let session = self.session.withLock { $0 }
    await session?.close()
    let watchers = self.watchers.withLock { $0 }
    for watcher in watchers { watcher.cancel() }
    for watcher in watchers { await watcher.value }
    for follower in followers.withLock({ $0 }) { await follower.value }
  }

  /// The last sequence delivered, 0 before any.
  var lastDelivered: UInt64 { delivered.withLock { $0.last ?? 0 } }

  // MARK: The workload

  /// Runs `operations` operations (their numbers, for distinct slots and texts) against the
  /// world, telling the ledger each answer; `after` runs after each one (the kills).
  func drive(
    operations: [Int], appRestarts: Int, world: ChaosWorld, ledger: ChaosLedger,
    after: (Int) async -> Void
  ) async {
    // Evenly spread through the device's operations.
    let restarts = Set((0..<appRestarts).map { operations.count * ($0 + 1) / (appRestarts + 1) })
    for (position, number) in operations.enumerated()
    where !ledger.aborted.load(ordering: .relaxed) {
      if restarts.contains(position) { await appRestart(number, world: world, ledger: ledger) }
      await operate(number, position: position, world: world, ledger: ledger)
      let done = ledger.completed.add(1, ordering: .relaxed).newValue
      await after(done)
    }
  }

  /// The app is killed with writes queued and not yet answered, and started again: the new
  /// session sends them from the queue file, and their answers come on `outcomes` (of the old
  /// session when it got them before it closed).
  private func appRestart(_ number: Int, world: ChaosWorld, ledger: ChaosLedger) async {
    let others = world.players.filter { $0.id != player.id }
    var queued: [(key: String, message: ChaosLedger.Message)] = []
    for part in 0..<3 {
      let recipient = others[roll(0..<others.count)]
      let text = "chaos \(seed) message \(number) queued \(part)"
      let request = SendMessageRequest(
        recipientID: recipient.id, clientMessageID: "m\(number)q\(part)", text: text)
      guard let key = try? await current.enqueue(Messages.sendMessage, request) else { continue }
      queued.append(
        (
          key,
          .init(
            sender: player.id, recipient: recipient.id, text: text, answer: .refused(reason: ""))
        ))
    }
    await close()
    do {
      try open(ledger: ledger)
    } catch {
      ledger.state.withLock { $0.problems.append("device \(index) did not open again: \(error)") }
      return
    }
    ledger.state.withLock { $0.appRestarts += 1 }
    for (key, message) in queued {
      var message = message
      guard let outcome = await outcome(key) else {
        ledger.state.withLock {
          $0.unanswered += 1
          $0.problems.append("device \(index): no answer for queued write \(key)")
        }
        continue
      }
      do {
        let sent = try outcome.response(as: DirectMessage.self)
        message.answer = .succeeded(id: sent.id)
      } catch {
        message.answer = ChaosLedger.refusal(error)
        ledger.answered(message.answer)
      }
      ledger.state.withLock { $0.messages.append(message) }
    }
  }

  /// The outcome of the queued write `key`, once a session handed it over; nil when none came
  /// within a minute (the run then fails).
  private func outcome(_ key: String) async -> WriteOutcome? {
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
      if let outcome = outcomes.withLock({ $0[key] }) { return outcome }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return nil
  }

  private func roll(_ range: Range<Int>) -> Int {
    random.withLock { Int.random(in: range, using: &$0) }
  }

  private func operate(
    _ number: Int, position: Int, world: ChaosWorld, ledger: ChaosLedger
  ) async {
    let dice = roll(0..<100)
    switch dice {
    case 0..<30: await sendMessage(number, world: world, ledger: ledger)
    case 30..<62:
      await availability(
        number, position: position, world: world, ledger: ledger, preferCancel: dice >= 55)
    case 62..<72: await dayStatus(number, ledger: ledger)
    case 72..<85:
      if await !friendAction(world: world, ledger: ledger) { await read(number, ledger: ledger) }
    default: await read(number, ledger: ledger)
    }
  }

  /// Sends a write through the session: its answer, or the definite error.
  private func write<Request: ProtobufMessage, Response: ProtobufMessage>(
    _ method: MethodDescriptor<Request, Response>, _ request: Request, ledger: ChaosLedger
  ) async -> Result<Response, ChaosLedger.Answer> {
    do {
      return .success(try await current.write(method, request))
    } catch {
      let answer = ChaosLedger.refusal(error)
      ledger.answered(answer)
      return .failure(answer)
    }
  }

  private func sendMessage(_ number: Int, world: ChaosWorld, ledger: ChaosLedger) async {
    let others = world.players.filter { $0.id != player.id }
    let recipient = others[roll(0..<others.count)]
    let text = "chaos \(seed) message \(number)"
    let result = await write(
      Messages.sendMessage,
      SendMessageRequest(recipientID: recipient.id, clientMessageID: "m\(number)", text: text),
      ledger: ledger)
    let answer: ChaosLedger.Answer =
      switch result {
      case .success(let message): .succeeded(id: message.id)
      case .failure(let refusal): refusal
      }
    ledger.state.withLock {
      $0.messages.append(
        .init(sender: player.id, recipient: recipient.id, text: text, answer: answer))
    }
  }

  private func availability(
    _ number: Int, position: Int, world: ChaosWorld, ledger: ChaosLedger, preferCancel: Bool
  ) async {
    if preferCancel || !world.reservePost(player.id) {
      if let id = world.takeActive(player.id, pick: { self.roll(0..<$0) }) {
        let result = await write(
          Matching.cancelAvailability, CancelAvailabilityRequest(availabilityID: id),
          ledger: ledger)
        let answer: ChaosLedger.Answer =
          switch result {
          case .success: .succeeded(id: id)
          case .failure(let refusal): refusal
          }
        ledger.state.withLock {
          $0.cancels.append(.init(player: player.id, availability: id, answer: answer))
        }
        return
      }
      guard world.reservePost(player.id) else {
        await read(number, ledger: ledger)
        return
      }
    }
    // A slot no other post of this player has: the day and the start from the operation's
    // position among the device's, the length from the device (at most 20 devices) and, past
    // 15,600 positions, from the position too.
    precondition(position < 62_400 && index < 20, "more operations than distinct slots")
    let day = ChaosDates.day(after: 1 + position % 12)
    let start = Int32((position / 12) % 1300)
    let end = start + 60 + Int32(index) + Int32(position / 15_600) * 20
    var request = PostAvailabilityRequest()
    request.mode = .singles
    request.date = LocalDate(year: day.0, month: day.1, day: day.2)
    request.startMinute = start
    request.endMinute = end
    request.timeZone = "UTC"
    request.location = GeoPoint(latitude: player.latitude, longitude: player.longitude)
    request.radiusMiles = 10
    let result = await write(Matching.postAvailability, request, ledger: ledger)
    let answer: ChaosLedger.Answer
    switch result {
    case .success(let availability):
      world.posted(player.id, id: availability.id)
      answer = .succeeded(id: availability.id)
    case .failure(let refusal):
      world.posted(player.id, id: nil)
      answer = refusal
    }
    ledger.state.withLock {
      $0.posts.append(
        .init(
          player: player.id, date: ChaosDates.text(day), start: start, end: end, answer: answer))
    }
  }

  private func dayStatus(_ number: Int, ledger: ChaosLedger) async {
    // Each device has dates of its own, so that its answers' order is the store's order.
    let day = ChaosDates.day(after: 20 + index * 18 + number % 18)
    let note = "chaos \(seed) day \(number)"
    let status: DayStatus = [.free, .busy, .eveningOnly][roll(0..<3)]
    let result = await write(
      Schedule.updateDayStatus,
      UpdateDayStatusRequest(
        date: LocalDate(year: day.0, month: day.1, day: day.2), status: status, note: note,
        timeZone: "UTC"),
      ledger: ledger)
    let answer: ChaosLedger.Answer =
      switch result {
      case .success: .succeeded(id: 0)
      case .failure(let refusal): refusal
      }
    ledger.state.withLock {
      $0.dayStatuses.append(
        .init(player: player.id, date: ChaosDates.text(day), note: note, answer: answer))
    }
  }

  /// Asks a player to be friends, accepts a request, or ends a friendship: false when no pair
  /// of this player is free to act on.
  private func friendAction(world: ChaosWorld, ledger: ChaosLedger) async -> Bool {
    guard let (other, pairState) = world.reservePair(for: player.id, pick: { self.roll(0..<$0) })
    else { return false }
    switch pairState {
    case .strangers:
      let result = await write(
        Friends.sendFriendRequest, SendFriendRequestRequest(userID: other), ledger: ledger)
      switch result {
      case .success(let request):
        world.release(
          player.id, other,
          as: request.state == .pending ? .requested(id: request.id, sender: player.id) : .unknown)
        ledger.state.withLock {
          $0.friendRequests.append(
            .init(sender: player.id, recipient: other, answer: .succeeded(id: request.id)))
        }
      case .failure(let refusal):
        world.release(player.id, other, as: .unknown)
        ledger.state.withLock {
          $0.friendRequests.append(.init(sender: player.id, recipient: other, answer: refusal))
        }
      }
    case .requested(let id, _):
      let result = await write(
        Friends.acceptFriendRequest, AnswerFriendRequestRequest(requestID: id), ledger: ledger)
      let answer: ChaosLedger.Answer =
        switch result {
        case .success: .succeeded(id: id)
        case .failure(let refusal): refusal
        }
      world.release(player.id, other, as: answer == .succeeded(id: id) ? .friends : .unknown)
      ledger.state.withLock {
        $0.accepts.append(.init(recipient: player.id, request: id, answer: answer))
      }
    case .friends:
      let result = await write(
        Friends.removeFriend, RemoveFriendRequest(userID: other), ledger: ledger)
      let answer: ChaosLedger.Answer =
        switch result {
        case .success: .succeeded(id: 0)
        case .failure(let refusal): refusal
        }
      world.release(player.id, other, as: answer == .succeeded(id: 0) ? .strangers : .unknown)
      ledger.state.withLock {
        $0.removals.append(.init(player: player.id, friend: other, answer: answer))
      }
    case .busy, .unknown:
      world.release(player.id, other, as: pairState)
    }
    return true
  }

  private func read(_ number: Int, ledger: ChaosLedger) async {
    do {
      switch number % 3 {
      case 0: _ = try await current.call(Matching.listMyAvailability, ListMyAvailabilityRequest())
      case 1:
        _ = try await current.call(Schedule.getMySchedule, GetMyScheduleRequest(timeZone: "UTC"))
      default: _ = try await current.call(Friends.listFriends, ListFriendsRequest())
      }
      ledger.state.withLock { $0.reads += 1 }
    } catch {
      ledger.state.withLock {
        $0.reads += 1
        $0.readFailures += 1
      }
    }
  }
}
