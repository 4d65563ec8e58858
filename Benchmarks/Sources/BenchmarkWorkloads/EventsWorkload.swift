public import BadmintonAPI
import BadmintonDomain
public import BadmintonRPC
import BadmintonServices
import BadmintonStore
import BadmintonSQLite
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

  /// Arrivals and the deliveries waiting for them, shared by the streams and the sender.
  private final class Mailbox: Sendable {
    let state = Mutex<
      (
        waiters: [Int64: CheckedContinuation<ContinuousClock.Instant, Never>],
        early: [Int64: ContinuousClock.Instant]
      )
    >(([:], [:]))
    let subscribed = Atomic<Int>(0)
  }

  /// Runs `deliveries` messages, each to a random one of `subscribers` subscribed players.
  public static func run(subscribers: Int, deliveries: Int) async throws -> Result {
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
    let server = RPCServer(
      configuration: ServerConfiguration(port: 0), services: services.services,
      authenticator: services.authenticator, logger: logger)

    return try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await server.run() }
      defer { group.cancelAll() }
      let port = try await server.localAddress().port!
      let control = RPCClient(host: "127.0.0.1", port: port)
      _ = try await control.accounts.register(
        RegisterRequest(
          phone: "+15550000000", nickname: "Sender", password: "sender-pass", selfLevel: 5))
      let senderToken = try await control.accounts.login(
        LoginRequest(phone: "+15550000000", password: "sender-pass")
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
                  phone: phone, nickname: "Player \(n)", password: "password-\(n)", selfLevel: 4))
              let login = try await control.accounts.login(
                LoginRequest(phone: phone, password: "password-\(n)"))
              return (n, login.token, login.userID)
            }
          }
          var batch: [(Int, String, Int64)] = []
          for try await login in logins { batch.append(login) }
          return batch.sorted { $0.0 < $1.0 }.map { (token: $0.1, userID: $0.2) }
        }
      }

      // Each player's stream on a connection of its own; an arrival resumes whoever waits for
      // that message.
      let tokens = registered.map(\.token)
      let userIDs = registered.map(\.userID)
      let mailbox = Mailbox()
      let clients = tokens.map { _ in RPCClient(host: "127.0.0.1", port: port) }
      let listeners = Task {
        try await withThrowingTaskGroup(of: Void.self) { streams in
          for (client, token) in zip(clients, tokens) {
            streams.addTask {
              let stream = try await client.events.subscribe(
                options: CallOptions(bearerToken: token))
              mailbox.subscribed.add(1, ordering: .relaxed)
              for try await event in stream {
                guard case .messageReceived(let message) = event.body else { continue }
                let now = ContinuousClock.now
                let waiter = mailbox.state.withLock { box in
                  guard let waiter = box.waiters.removeValue(forKey: message.id) else {
                    box.early[message.id] = now
                    return nil as CheckedContinuation<ContinuousClock.Instant, Never>?
                  }
                  return waiter
                }
                waiter?.resume(returning: now)
              }
            }
          }
          try await streams.waitForAll()
        }
      }
      defer { listeners.cancel() }
      while mailbox.subscribed.load(ordering: .relaxed) < subscribers {
        try await Task.sleep(for: .milliseconds(10))
      }

      var random = SplitMix64(seed: 3)
      var result = Result(afterReturn: [], afterCall: [])
      for delivery in 0..<deliveries {
        let recipient = Int.random(in: 0..<subscribers, using: &random)
        let start = ContinuousClock.now
        let sent = try await control.messages.sendMessage(
          SendMessageRequest(
            recipientID: userIDs[recipient], clientMessageID: "bench-\(delivery)",
            text: "Court 3 at 7?"),
          options: CallOptions(bearerToken: senderToken))
        let returned = ContinuousClock.now
        let arrived = await withCheckedContinuation { continuation in
          let already = mailbox.state.withLock { box in
            guard let arrival = box.early.removeValue(forKey: sent.id) else {
              box.waiters[sent.id] = continuation
              return nil as ContinuousClock.Instant?
            }
            return arrival
          }
          if let already { continuation.resume(returning: already) }
        }
        result.afterReturn.append(max(.zero, arrived - returned))
        result.afterCall.append(arrived - start)
      }
      for client in clients { await client.close() }
      await control.close()
      return result
    }
  }
}
