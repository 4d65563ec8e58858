import BadmintonDomain
import BadmintonStore
import PropertyBased
import StoreTestSupport
import Testing

/// The PostgreSQL store checked against the SQLite store as its oracle: the same calls give the
/// same answers, the same refusals and the same stored state.
@Suite("Friends, blocks, schedules and messages: PostgreSQL as SQLite")
struct SocialStoreParityTests {
  /// One call: what it is, and two numbers that pick its players and arguments.
  struct Step: Sendable, CustomStringConvertible {
    var kind: Int
    var a: Int
    var b: Int

    var description: String { "(\(kind), \(a), \(b))" }
  }

  static let steps = zip(Gen.int(in: 0...11), Gen.int(in: 0...99), Gen.int(in: 0...99)).map {
    Step(kind: $0.0, a: $0.1, b: $0.2)
  }

  /// Players in each store, made in the same order, so their ids agree.
  static let playerCount = 4

  @Test(
    "for any friend requests, answers, blocks, messages, receipts and days, both stores agree",
    // It compares the two stores: with one selected (BADMINTON_TEST_STORES) there is nothing to
    // compare.
    .enabled(if: StoreKind.allCases.count == 2))
  func anySteps_sameAnswersAndState() async throws {
    await propertyCheck(count: 15, input: Self.steps.array(of: 1...40)) { steps in
      do {
        var outcomes: [[String]] = []
        var states: [String] = []
        for kind in StoreKind.allCases {
          let (outcome, state) = try await withStore(kind) { store in
            var ids: [Int64] = []
            for index in 0..<Self.playerCount {
              ids.append(
                try await store.createPlayer(
                  StoreFixtures.newPlayer(phone: "+86139000003\(index)")
                ).id)
            }
            var outcome: [String] = []
            for (index, step) in steps.enumerated() {
              outcome.append(
                await Self.run(step, store, ids: ids, now: 1_000 + Int64(index)))
            }
            return (outcome, try await Self.state(store, ids: ids))
          }
          outcomes.append(outcome)
          states.append(state)
        }
        for (index, step) in steps.enumerated() where outcomes[0][index] != outcomes[1][index] {
          Issue.record(
            "step \(index) \(step): sqlite \(outcomes[0][index]), postgresql \(outcomes[1][index])")
          break
        }
        #expect(states[0] == states[1])
      } catch {
        Issue.record("\(String(reflecting: error))")
      }
    }
  }

  /// Runs one step and tells what it answered or why it was refused.
  static func run(_ step: Step, _ store: any ServerStore, ids: [Int64], now: Int64) async
    -> String
  {
    let p = ids[step.a % ids.count]
    // Now and then a player who does not exist.
    let q = step.b % 11 == 10 ? 999_999 : ids[step.b % ids.count]
    do {
      switch step.kind {
      case 0, 1:
        return
          "\(try await store.sendFriendRequest(from: p, to: q, now: now) { [($0.recipientID, Array("request \($0.id) \($0.state)".utf8))] })"
      case 2:
        return
          "\(try await store.answerFriendRequest(id: Int64(step.a % 8 + 1), recipientID: q, accept: step.b % 2 == 0, now: now) { [($0.senderID, Array("answer \($0.id) \($0.state)".utf8))] })"
      case 3:
        return "\(try await store.removeFriend(playerID: p, friendID: q))"
      case 4:
        try await store.block(blockerID: p, blockedID: q, now: now)
        return "blocked"
      case 5:
        return "\(try await store.unblock(blockerID: p, blockedID: q))"
      case 6, 7:
        let message = NewMessage(
          senderID: p, recipientID: q, clientMessageID: "c\(step.a % 3)",
          text: "t\(step.b % 2)", sentAtUnixMs: now)
        let sent = try await store.sendMessage(message) {
          [($0.recipientID, Array("message \(Self.render($0))".utf8))]
        }
        return "\(sent.created) \(Self.render(sent.message))"
      case 8:
        // Messages picked by their place among all messages, to any player.
        let all = try await Self.allMessages(store, ids: ids)
        let picked = all.isEmpty ? [] : [all[step.a % all.count].id, all[step.b % all.count].id]
        let acknowledged = try await store.acknowledgeDelivered(
          messageIDs: picked, recipientID: q, now: now
        ) { receipts in
          receipts.map {
            ($0.senderID, Array("delivered \($0.threadID) \($0.messageIDs.count)".utf8))
          }
        }
        return "\(acknowledged)"
      case 9:
        let all = try await Self.allMessages(store, ids: ids)
        let upTo = step.b % 3 == 0 || all.isEmpty ? nil : all[step.b % all.count].id
        let unread = try await store.markRead(
          threadID: Int64(step.a % 4 + 1), playerID: q, upToMessageID: upTo, now: now
        ) { [($0.senderID, Array("read \($0.threadID) \($0.messageIDs.count)".utf8))] }
        return "\(unread)"
      case 10:
        try await store.deleteConversation(threadID: Int64(step.a % 4 + 1), playerID: q)
        return "cleared"
      default:
        try await store.setDayStatus(
          DayStatusRecord(
            playerID: p, date: LocalDate(year: 2026, month: 12, day: 28).adding(days: step.b % 6),
            status: step.a % 4, note: "n\(step.b % 3)", updatedAtUnixMs: now))
        return "set"
      }
    } catch {
      return "refused \(error)"
    }
  }

  /// A message as text without its id: PostgreSQL may skip ids (an insert that finds the
  /// message already stored draws one), so messages are compared by everything else, in the
  /// order their ids give.
  static func render(_ message: MessageRecord) -> String {
    "\(message.threadID) \(message.senderID)>\(message.recipientID) \(message.clientMessageID) "
      + "\(message.text) \(message.sentAtUnixMs) d\(message.deliveredAtUnixMs ?? -1) "
      + "r\(message.readAtUnixMs ?? -1) h\(message.hidden)"
  }

  /// Every stored message, in id order: each is in its sender's view.
  static func allMessages(_ store: any ServerStore, ids: [Int64]) async throws -> [MessageRecord] {
    var all: [Int64: MessageRecord] = [:]
    for id in ids {
      for message in try await store.messages(playerID: id, afterMessageID: 0, limit: 1_000)
      where message.senderID == id {
        all[message.id] = message
      }
    }
    return all.values.sorted { $0.id < $1.id }
  }

  /// Everything the store tells of the players, as text.
  static func state(_ store: any ServerStore, ids: [Int64]) async throws -> String {
    var lines: [String] = []
    for id in ids {
      lines.append("player \(id)")
      lines.append("\(try await store.friends(playerID: id).sorted { $0.friendID < $1.friendID })")
      lines.append("\(try await store.friends(playerID: id, afterID: nil, limit: 2))")
      for outgoing in [false, true] {
        lines.append(
          "\(try await store.friendRequests(playerID: id, outgoing: outgoing, beforeID: nil, limit: 50))"
        )
      }
      lines.append("\(try await store.blocks(blockerID: id))")
      lines.append("\(try await store.playersBlocked(eitherWayWith: id).sorted())")
      let threads = try await store.threads(playerID: id, beforeLastMessageID: nil, limit: 50)
      lines.append("unread \(threads.totalUnread)")
      for thread in threads.threads {
        lines.append(
          "thread \(thread.threadID) \(thread.otherID) \(thread.unreadCount) "
            + Self.render(thread.lastMessage))
      }
      lines.append(
        "\(try await store.messages(playerID: id, afterMessageID: 0, limit: 100).map(Self.render))")
      lines.append("\(try await store.unreadCount(playerID: id))")
      for thread in Int64(1)...4 {
        do {
          lines.append(
            "\(try await store.messages(threadID: thread, playerID: id, beforeMessageID: nil, limit: 50).map(Self.render))"
          )
        } catch {
          lines.append("refused \(error)")
        }
      }
      lines.append(
        "\(try await store.events(playerID: id, after: 0, limit: 200).map { ($0.sequence, $0.createdAtUnixMs, String(decoding: $0.payload, as: UTF8.self)) })"
      )
    }
    let days = try await store.dayStatuses(
      playerIDs: ids, from: LocalDate(year: 2026, month: 12, day: 1),
      through: LocalDate(year: 2027, month: 1, day: 31))
    lines.append("\(days.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })")
    lines.append(
      "\(try await store.allBlocks().map { [$0.blockerID, $0.blockedID] }.sorted { $0.lexicographicallyPrecedes($1) })"
    )
    return lines.joined(separator: "\n")
  }
}
