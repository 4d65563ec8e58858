import BadmintonAPI
import BadmintonDomain
import BadmintonRPC
import BadmintonSQLite
import BadmintonServices
import BadmintonStore
import Foundation
import Logging
import Synchronization

/// Event delivery: a server on an on-disk store like the real one, `subscribers` players each
/// subscribed on a connection of their own, and the time from the call that causes an event
/// returning to the recipient's stream yielding it.
///
/// The event is a direct message: one player sends a message with `SendMessage`, and its
/// `message_received` event reaches the recipient's stream. It is one write, one event, one
/// recipient, the same path every event takes (inbox row in the write's transaction, then the
/// live push).
public enum EventsWorkload {
  /// What a run measured.
  public struct Result: Sendable {
    /// From `SendMessage`'s answer reaching the sender to the event reaching the recipient (0
    /// when the event came first).
    public var afterReturn: [Duration]
    /// From the `SendMessage` call's start to the event reaching the recipient.
    public var afterCall: [Duration]
  }

  /// How long each step may take before the run stops with an error instead of waiting.
  public struct Limits: Sendable {
    /// Each call: a registration, a login, a message.
    public var call: Duration
    /// Every subscriber's stream open, from the first.
    public var subscribing: Duration
    /// A message's event reaching its recipient, from the call's start.
    public var delivery: Duration

    public init(
      call: Duration = .seconds(30), subscribing: Duration = .seconds(120),
      delivery: Duration = .seconds(10)
    ) {
      self.call = call
      self.subscribing = subscribing
      self.delivery = delivery
    }
  }

  /// Arrivals and the deliveries waiting for them, shared by the streams and the sender; and
  /// the first thing that went wrong on a stream, which ends the run.
  private final class Mailbox: Sendable {
    private struct State {
      var waiters:
        [Int64: (
          continuation: CheckedContinuation<ContinuousClock.Instant?, Never>,
          deadline: ContinuousClock.Instant
        )] = [:]
      var early: [Int64: ContinuousClock.Instant] = [:]
      var failure: String?
      var finished = false
    }

    private let state = Mutex(State())
    let subscribed = Atomic<Int>(0)

    /// The first failure, if any.
    var failure: String? { state.withLock { $0.failure } }

    /// Notes that message `id` reached its recipient at `instant`.
    func arrived(_ id: Int64, at instant: ContinuousClock.Instant) {
      let waiter = state.withLock { box in
        guard let waiter = box.waiters.removeValue(forKey: id) else {
          box.early[id] = instant
          return nil as CheckedContinuation<ContinuousClock.Instant?, Never>?
        }
        return waiter.continuation
      }
      waiter?.resume(returning: instant)
    }

    /// When message `id` reached its recipient; nil when it did not by `deadline` or a stream
    /// failed first.
    func arrival(of id: Int64, by deadline: ContinuousClock.Instant) async
      -> ContinuousClock.Instant?
    {
      await withCheckedContinuation { continuation in
        let ready: ContinuousClock.Instant?? = state.withLock { box in
          if let arrival = box.early.removeValue(forKey: id) { return .some(arrival) }
          if box.failure != nil { return .some(nil) }
          box.waiters[id] = (continuation, deadline)
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    }

    /// Gives up on the waits whose deadline has passed.
    func expire(now: ContinuousClock.Instant) {
      let expired = state.withLock { box in
        let ids = box.waiters.filter { $0.value.deadline <= now }.map(\.key)
        return ids.compactMap { box.waiters.removeValue(forKey: $0)?.continuation }
      }
      for waiter in expired { waiter.resume(returning: nil) }
    }

    /// Records what went wrong on a stream (unless the run has finished) and wakes every wait.
    func fail(_ what: String) {
      let waiters = state.withLock { box in
        guard !box.finished else { return [CheckedContinuation<ContinuousClock.Instant?, Never>]() }
        if box.failure == nil { box.failure = what }
        defer { box.waiters = [:] }
        return box.waiters.values.map(\.continuation)
      }
      for waiter in waiters { waiter.resume(returning: nil) }
    }

    /// From now on the streams end on purpose.
    func finish() { state.withLock { $0.finished = true } }
  }

  /// The open files a run with `subscribers` needs: both ends of every connection are in this
  /// process, besides the store's files and the event loops'.
  public static func openFilesNeeded(subscribers: Int) -> Int { 2 * (subscribers + 1) + 256 }

  /// Runs `deliveries` messages, each to a random one of `subscribers` subscribed players. The
  /// server admits the connections the run opens from 127.0.0.1 (its default is 128 per
  /// address). Throws at once, naming what was missing, when the process may not open enough
  /// files, when a stream cannot be opened or ends, and when a step takes longer than `limits`
  /// allows.
  public static func run(subscribers: Int, deliveries: Int, limits: Limits = Limits())
    async throws -> Result
  {
    let purpose =
      "the events section (\(grouped(subscribers)) subscribers, each on a connection of its own)"
    try SystemResources.requireOpenFiles(openFilesNeeded(subscribers: subscribers), for: purpose)
    try SystemResources.requireLocalPorts(subscribers + 64, for: purpose)
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("badminton-bench-events-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try SQLitePlayerStore.open(directory: directory)
    let services = try await PlayerServices.start(
      store: store,
      configuration: PlayerServicesConfiguration(
        passwordCost: .testing, maximumBufferedEvents: 4096,
        // The players register and log in 50 at a time, all from 127.0.0.1: logins under way
        // count against the address until they succeed, so the login limits are off.
        passwordHashWaiting: 200, loginPolicyPerPhone: .unlimited,
        loginPolicyPerAddress: .unlimited, registrationsPerAddressPerHour: 0))
    var logger = Logger(label: "badminton.bench.events")
    logger.logLevel = .critical
    // Every connection comes from 127.0.0.1: the subscribers' and the sender's.
    let connections = subscribers + 16
    let server = RPCServer(
      configuration: ServerConfiguration(
        port: 0, maximumConnections: max(10_000, connections),
        maximumConnectionsPerAddress: connections),
      services: services.services, authenticator: services.authenticator, logger: logger)
    let callOptions = CallOptions(timeout: limits.call)
    let clientConfiguration = ClientConfiguration(connectTimeout: .seconds(5))

    return try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await server.run() }
      defer { group.cancelAll() }
      let port = try await server.localAddress().port!
      let control = RPCClient(host: "127.0.0.1", port: port, configuration: clientConfiguration)
      _ = try await control.accounts.register(
        RegisterRequest(
          phone: "+15550000000", nickname: "Sender", password: "sender-pass", selfLevel: 5),
        options: callOptions)
      let senderToken = try await control.accounts.login(
        LoginRequest(phone: "+15550000000", password: "sender-pass"), options: callOptions
      ).token

      // The players, registered and logged in a few at a time.
      var registered: [(token: String, userID: Int64)] = []
      for start in stride(from: 0, to: subscribers, by: 50) {
        registered += try await withThrowingTaskGroup(of: (Int, String, Int64).self) { logins in
          for n in start..<min(start + 50, subscribers) {
            logins.addTask {
              let phone = "+1555\(String(format: "%07d", n + 1))"
              _ = try await control.accounts.register(
                RegisterRequest(
                  phone: phone, nickname: "Player \(n)", password: "password-\(n)", selfLevel: 4),
                options: callOptions)
              let login = try await control.accounts.login(
                LoginRequest(phone: phone, password: "password-\(n)"), options: callOptions)
              return (n, login.token, login.userID)
            }
          }
          var batch: [(Int, String, Int64)] = []
          for try await login in logins { batch.append(login) }
          return batch.sorted { $0.0 < $1.0 }.map { (token: $0.1, userID: $0.2) }
        }
      }

      // Each player's stream on a connection of its own, opened 50 at a time; an arrival
      // resumes whoever waits for that message. A stream that cannot be opened, fails or ends
      // stops the run.
      let tokens = registered.map(\.token)
      let userIDs = registered.map(\.userID)
      let mailbox = Mailbox()
      let clients = tokens.map { _ in
        RPCClient(host: "127.0.0.1", port: port, configuration: clientConfiguration)
      }
      let listeners = Task {
        await withTaskGroup(of: Void.self) { streams in
          for start in stride(from: 0, to: subscribers, by: 50) {
            for n in start..<min(start + 50, subscribers) {
              let (client, token) = (clients[n], tokens[n])
              streams.addTask {
                do {
                  let stream = try await client.events.subscribe(
                    options: CallOptions(bearerToken: token))
                  mailbox.subscribed.add(1, ordering: .relaxed)
                  for try await event in stream {
                    guard case .messageReceived(let message) = event.body else { continue }
                    mailbox.arrived(message.id, at: ContinuousClock.now)
                  }
                  mailbox.fail("subscriber \(n)'s event stream ended")
                } catch {
                  mailbox.fail("subscriber \(n)'s event stream failed: \(error)")
                }
              }
            }
            while mailbox.subscribed.load(ordering: .relaxed) < min(start + 50, subscribers),
              mailbox.failure == nil, !Task.isCancelled
            {
              try? await Task.sleep(for: .milliseconds(5))
            }
            if mailbox.failure != nil || Task.isCancelled { break }
          }
          await streams.waitForAll()
        }
      }
      defer {
        mailbox.finish()
        listeners.cancel()
      }
      let subscribing = ContinuousClock.now + limits.subscribing
      while mailbox.subscribed.load(ordering: .relaxed) < subscribers {
        if let failure = mailbox.failure {
          throw BenchmarkShortfall(
            "\(purpose): \(failure), with \(mailbox.subscribed.load(ordering: .relaxed)) of "
              + "\(subscribers) streams open")
        }
        guard ContinuousClock.now < subscribing else {
          throw BenchmarkShortfall(
            "\(purpose): only \(mailbox.subscribed.load(ordering: .relaxed)) of \(subscribers) "
              + "streams were open after \(limits.subscribing)")
        }
        try await Task.sleep(for: .milliseconds(10))
      }
      // Gives up on deliveries that take longer than the limit.
      let watchdog = Task {
        while !Task.isCancelled {
          try? await Task.sleep(for: .milliseconds(100))
          mailbox.expire(now: .now)
        }
      }
      defer { watchdog.cancel() }

      var random = SplitMix64(seed: 3)
      var result = Result(afterReturn: [], afterCall: [])
      for delivery in 0..<deliveries {
        let recipient = Int.random(in: 0..<subscribers, using: &random)
        let start = ContinuousClock.now
        let sent = try await control.messages.sendMessage(
          SendMessageRequest(
            recipientID: userIDs[recipient], clientMessageID: "bench-\(delivery)",
            text: "Court 3 at 7?"),
          options: CallOptions(timeout: limits.call, bearerToken: senderToken))
        let returned = ContinuousClock.now
        guard let arrived = await mailbox.arrival(of: sent.id, by: start + limits.delivery)
        else {
          throw BenchmarkShortfall(
            "\(purpose): "
              + (mailbox.failure
                ?? "message \(delivery + 1) of \(deliveries) did not reach subscriber "
                + "\(recipient) within \(limits.delivery) of the call's start"))
        }
        result.afterReturn.append(max(.zero, arrived - returned))
        result.afterCall.append(arrived - start)
      }
      mailbox.finish()
      for client in clients { await client.close() }
      await control.close()
      return result
    }
  }
}
