import BadmintonRPC
import Synchronization

/// What the clients were told: every write of the workload with its definite answer, and the
/// figures of the run. The audit compares it with the store.
final class ChaosLedger: Sendable {
  /// A write's definite answer as the client got it.
  enum Answer: Error, Sendable, Hashable {
    /// Succeeded; the id the answer carried (0 when it carries none).
    case succeeded(id: Int64)
    /// Refused, with the reason.
    case refused(reason: String)
  }

  struct Post: Sendable {
    var player: Int64
    var date: String
    var start: Int32
    var end: Int32
    var answer: Answer
  }

  struct Cancel: Sendable {
    var player: Int64
    var availability: Int64
    var answer: Answer
  }

  struct Message: Sendable {
    var sender: Int64
    var recipient: Int64
    var text: String
    var answer: Answer
  }

  struct FriendRequest: Sendable {
    var sender: Int64
    var recipient: Int64
    var answer: Answer
  }

  struct Accept: Sendable {
    var recipient: Int64
    var request: Int64
    var answer: Answer
  }

  struct Removal: Sendable {
    var player: Int64
    var friend: Int64
    var answer: Answer
  }

  struct DayStatus: Sendable {
    var player: Int64
    var date: String
    var note: String
    var answer: Answer
  }

  struct State: Sendable {
    var posts: [Post] = []
    var cancels: [Cancel] = []
    var messages: [Message] = []
    var friendRequests: [FriendRequest] = []
    var accepts: [Accept] = []
    var removals: [Removal] = []
    /// In the order each device was answered; a device's dates are its own.
    var dayStatuses: [DayStatus] = []
    var reads = 0
    var readFailures = 0
    var refusals: [String: Int] = [:]
    var relogins = 0
    var appRestarts = 0
    /// Queued writes whose answer never came.
    var unanswered = 0
    /// What went wrong in the harness itself.
    var problems: [String] = []
  }

  let state = Mutex(State())
  /// Operations done, writes and reads.
  let completed = Atomic<Int>(0)
  /// The harness cannot go on (the server or the proxy did not come back): the devices stop.
  let aborted = Atomic<Bool>(false)

  /// Notes a write's answer under its reason when refused.
  func answered(_ answer: Answer) {
    if case .refused(let reason) = answer {
      state.withLock { $0.refusals[reason, default: 0] += 1 }
    }
  }

  /// The answer for `error`, a definite error of a write.
  static func refusal(_ error: any Error) -> Answer {
    if let error = error as? RPCError {
      return .refused(reason: error.reason.isEmpty ? "\(error.code)" : error.reason)
    }
    return .refused(reason: "\(error)")
  }
}
