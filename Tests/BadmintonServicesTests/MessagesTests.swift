import BadmintonAPI
import BadmintonDomain
import BadmintonRPC
import BadmintonServices
import BadmintonStore
import PropertyBased
import StoreTestSupport
import Testing

@Suite("Direct messages")
struct MessagesTests {
  // MARK: Helpers

  private static func send(
    _ world: PlayerWorld, from sender: PlayerWorld.Player, to recipient: PlayerWorld.Player,
    _ text: String = "see you at the court", id: String? = nil
  ) async throws -> DirectMessage {
    try await world.client.messages.sendMessage(
      .init(
        recipientID: recipient.id, clientMessageID: id ?? "m-\(PlayerWorld.newPhone())",
        text: text),
      options: sender.options)
  }

  /// Every message `player` can see, through SyncMessages pages of `limit`.
  private static func synced(
    _ world: PlayerWorld, _ player: PlayerWorld.Player, limit: Int32 = 0
  ) async throws -> [DirectMessage] {
    var all: [DirectMessage] = []
    var cursor: Int64 = 0
    while true {
      let page = try await world.client.messages.syncMessages(
        .init(afterMessageID: cursor, limit: limit), options: player.options)
      all += page.messages
      #expect(page.nextAfterMessageID == (page.messages.last?.id ?? cursor))
      cursor = page.nextAfterMessageID
      if !page.more { return all }
    }
  }

  /// Every message of a thread `player` can see, newest first, through LoadMessages pages.
  private static func loaded(
    _ world: PlayerWorld, _ player: PlayerWorld.Player, thread: Int64, limit: Int32 = 0
  ) async throws -> [DirectMessage] {
    var all: [DirectMessage] = []
    var before: Int64 = 0
    repeat {
      let page = try await world.client.messages.loadMessages(
        .init(threadID: thread, beforeMessageID: before, limit: limit), options: player.options)
      all += page.messages
      before = page.nextBeforeMessageID
    } while before != 0
    return all
  }

  /// The message events stored for `player`, oldest first.
  private static func events(_ world: PlayerWorld, _ player: PlayerWorld.Player) async throws
    -> [Event.Body]
  {
    try await world.store.events(playerID: player.id, after: 0, limit: 10_000).compactMap {
      switch try Event(serializedBytes: $0.payload).body {
      case .messageReceived(let message)?: .messageReceived(message)
      case .messageReceipt(let receipt)?: .messageReceipt(receipt)
      default: nil
      }
    }
  }

  private static func received(_ world: PlayerWorld, _ player: PlayerWorld.Player) async throws
    -> [Int64]
  {
    try await events(world, player).compactMap {
      if case .messageReceived(let message) = $0 { message.id } else { nil }
    }
  }

  private static func receipts(_ world: PlayerWorld, _ player: PlayerWorld.Player) async throws
    -> [MessageReceipt]
  {
    try await events(world, player).compactMap {
      if case .messageReceipt(let receipt) = $0 { receipt } else { nil }
    }
  }

  // MARK: Sending

  @Test(
    "a message reaches the recipient's thread and the sender's, with its thread made once",
    arguments: StoreKind.allCases)
  func send_makesOneThreadPerPair(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player(nickname: "Ann")
      let bo = try await world.player(nickname: "Bo")
      let first = try await Self.send(world, from: ann, to: bo, "hi 👋🏽")
      let reply = try await Self.send(world, from: bo, to: ann, "hello")
      #expect(first.threadID == reply.threadID)
      #expect(first.senderID == ann.id && first.recipientID == bo.id && first.text == "hi 👋🏽")
      #expect(first.sentAtUnixMs == world.clock.nowUnixMs() && first.deliveredAtUnixMs == 0)
      #expect(reply.id > first.id)
      let bosView = try await world.client.messages.listThreads(.init(), options: bo.options)
      #expect(bosView.threads.count == 1)
      #expect(bosView.threads[0].other.userID == ann.id)
      #expect(bosView.threads[0].other.nickname == "Ann")
      #expect(bosView.threads[0].lastMessage == reply)
      #expect(bosView.threads[0].unreadCount == 1 && bosView.totalUnread == 1)
      #expect(try await Self.received(world, bo) == [first.id])
      #expect(try await Self.received(world, ann) == [reply.id])
    }
  }

  @Test(
    "property 16 over the wire: each reason code, with its field and zh-CN text",
    arguments: StoreKind.allCases)
  func send_reasonCodes(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let bo = try await world.player()
      func refusal(
        to recipient: Int64? = nil, id: String = "x", _ text: String, locale: RPCLocale = .en
      ) async -> RPCError? {
        await rpcError {
          _ = try await world.client.messages.sendMessage(
            .init(recipientID: recipient ?? bo.id, clientMessageID: id, text: text),
            options: CallOptions(locale: locale, bearerToken: ann.token))
        }
      }
      let long = await refusal(String(repeating: "羽", count: 1001), locale: .zhCN)
      #expect(long?.code == .invalidArgument)
      #expect(long?.reason == "MESSAGE_TOO_LONG")
      #expect(long?.message.en == "消息不能超过1000字")
      #expect(long?.violations.map(\.field) == ["text"])
      let english = await refusal(String(repeating: "a", count: 1001))
      #expect(english?.message.en == "A message can have at most 1000 characters.")
      for blank in ["", "   ", "\n\t\u{3000}"] {
        let empty = await refusal(blank)
        #expect(empty?.code == .invalidArgument)
        #expect(empty?.reason == "MESSAGE_EMPTY")
        #expect(empty?.violations.map(\.field) == ["text"])
      }
      for id in ["", String(repeating: "k", count: 65)] {
        let bad = await refusal(id: id, "hi")
        #expect(bad?.reason == "CLIENT_MESSAGE_ID_INVALID")
        #expect(bad?.violations.map(\.field) == ["client_message_id"])
      }
      #expect(await refusal(to: ann.id, "hi")?.reason == "NOT_YOURSELF")
      let nobody = await refusal(to: 999_999, "hi")
      #expect(nobody?.code == .notFound && nobody?.reason == "PLAYER_NOT_FOUND")
      // Exactly 1000 characters of any width pass; nothing was stored by the refusals.
      let full = try await Self.send(world, from: ann, to: bo, String(repeating: "🏸", count: 1000))
      #expect(full.text.count == 1000)
      #expect(try await Self.synced(world, ann).map(\.id) == [full.id])
    }
  }

  @Test(
    "the same SendMessage twice, or many at once, stores one message", arguments: StoreKind.allCases
  )
  func send_isIdempotent(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let bo = try await world.player()
      let first = try await Self.send(world, from: ann, to: bo, "once", id: "retry-1")
      world.clock.advance(by: 5_000)
      let again = try await Self.send(world, from: ann, to: bo, "once", id: "retry-1")
      #expect(again == first)
      let racing = try await withThrowingTaskGroup(of: DirectMessage.self) { group in
        for _ in 0..<8 {
          group.addTask { try await Self.send(world, from: ann, to: bo, "at once", id: "race") }
        }
        return try await group.reduce(into: [DirectMessage]()) { $0.append($1) }
      }
      #expect(racing.count == 8)
      #expect(Set(racing).count == 1)
      #expect(try await Self.synced(world, ann).map(\.id) == [first.id, racing[0].id])
      #expect(try await Self.synced(world, bo).map(\.id) == [first.id, racing[0].id])
      #expect(try await Self.received(world, bo) == [first.id, racing[0].id])
      // The same id with other text or to another player is refused.
      let cy = try await world.player()
      for (recipient, text) in [(bo, "twice"), (cy, "once")] {
        let reused = await rpcError {
          _ = try await Self.send(world, from: ann, to: recipient, text, id: "retry-1")
        }
        #expect(reused?.code == .alreadyExists)
        #expect(reused?.reason == "CLIENT_MESSAGE_ID_REUSED")
      }
      // Client message ids belong to their sender: another player may use the same one.
      let bosOwn = try await Self.send(world, from: bo, to: ann, "once", id: "retry-1")
      #expect(bosOwn.id != first.id)
    }
  }

  // MARK: Receipts

  @Test(
    "delivered and read receipts reach the sender; nobody else can mark them",
    arguments: StoreKind.allCases)
  func receipts_onlyByTheRecipient(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let bo = try await world.player()
      let cy = try await world.player()
      var sent: [DirectMessage] = []
      for text in ["one", "two", "three"] {
        sent.append(try await Self.send(world, from: ann, to: bo, text))
      }
      let toCy = try await Self.send(world, from: ann, to: cy, "other thread")
      let thread = sent[0].threadID
      world.clock.advance(by: 1_000)
      // The sender, or a third player, acknowledging or reading changes nothing.
      for player in [ann, cy] {
        let ack = try await world.client.messages.ackDelivered(
          .init(messageIDs: sent.map(\.id)), options: player.options)
        #expect(ack.acknowledged == 0)
      }
      let read = try await world.client.messages.markRead(
        .init(threadID: thread), options: ann.options)
      #expect(read.totalUnread == 0)
      let stranger = await rpcError {
        _ = try await world.client.messages.markRead(.init(threadID: thread), options: cy.options)
      }
      #expect(stranger?.code == .notFound && stranger?.reason == "THREAD_NOT_FOUND")
      #expect(try await Self.receipts(world, ann).isEmpty)
      #expect(
        try await Self.loaded(world, bo, thread: thread).allSatisfy { $0.deliveredAtUnixMs == 0 })

      // The recipient acknowledges two, plus ids that are not theirs, which are ignored.
      let delivered = world.clock.nowUnixMs()
      let ack = try await world.client.messages.ackDelivered(
        .init(messageIDs: [sent[0].id, sent[1].id, sent[1].id, toCy.id, 999_999]),
        options: bo.options)
      #expect(ack.acknowledged == 2)
      let twice = try await world.client.messages.ackDelivered(
        .init(messageIDs: [sent[0].id]), options: bo.options)
      #expect(twice.acknowledged == 0)
      #expect(
        try await Self.receipts(world, ann) == [
          MessageReceipt(
            threadID: thread, kind: .delivered, messageIDs: [sent[0].id, sent[1].id],
            atUnixMs: delivered)
        ])
      #expect(try await Self.receipts(world, cy).isEmpty)

      // Read up to the second: the third stays unread.
      world.clock.advance(by: 1_000)
      let readAt = world.clock.nowUnixMs()
      let marked = try await world.client.messages.markRead(
        .init(threadID: thread, upToMessageID: sent[1].id), options: bo.options)
      #expect(marked.totalUnread == 1)
      let view = try await Self.loaded(world, bo, thread: thread)
      #expect(view.map(\.readAtUnixMs) == [0, readAt, readAt])
      #expect(view.map(\.deliveredAtUnixMs) == [0, delivered, delivered])
      // Up to the newest (0): the third is read, and delivered with it.
      world.clock.advance(by: 1_000)
      let last = world.clock.nowUnixMs()
      let all = try await world.client.messages.markRead(
        .init(threadID: thread), options: bo.options)
      #expect(all.totalUnread == 0)
      let sendersView = try await Self.loaded(world, ann, thread: thread)
      #expect(sendersView[0].readAtUnixMs == last && sendersView[0].deliveredAtUnixMs == last)
      #expect(
        try await Self.receipts(world, ann).dropFirst().map {
          [Int64($0.kind.rawValue)] + $0.messageIDs
        }
          == [[2, sent[0].id, sent[1].id], [2, sent[2].id]])
      let tooMany = await rpcError {
        _ = try await world.client.messages.ackDelivered(
          .init(messageIDs: Array(1...501)), options: bo.options)
      }
      #expect(tooMany?.reason == "TOO_MANY_MESSAGE_IDS")
    }
  }

  @Test(
    "messageReceived reaches the recipient's live stream and messageReceipt the sender's",
    arguments: StoreKind.allCases)
  func liveEvents(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let bo = try await world.player()
      var bosStream = try await world.client.events.subscribe(options: bo.options)
        .makeAsyncIterator()
      var annsStream = try await world.client.events.subscribe(options: ann.options)
        .makeAsyncIterator()
      let sent = try await Self.send(world, from: ann, to: bo, "live")
      let arrived = try #require(try await bosStream.next())
      #expect(arrived.body == .messageReceived(sent))
      _ = try await world.client.messages.ackDelivered(
        .init(messageIDs: [sent.id]), options: bo.options)
      let delivered = try #require(try await annsStream.next())
      #expect(
        delivered.body
          == .messageReceipt(
            MessageReceipt(
              threadID: sent.threadID, kind: .delivered, messageIDs: [sent.id],
              atUnixMs: world.clock.nowUnixMs())))
      _ = try await world.client.messages.markRead(
        .init(threadID: sent.threadID), options: bo.options)
      let read = try #require(try await annsStream.next())
      guard case .messageReceipt(let receipt)? = read.body else {
        Issue.record("expected a receipt, got \(String(describing: read.body))")
        return
      }
      #expect(receipt.kind == .read && receipt.messageIDs == [sent.id])
    }
  }

  // MARK: Pages

  @Test(
    "LoadMessages pages newest first and SyncMessages oldest first, without gaps or repeats",
    arguments: StoreKind.allCases)
  func pagination(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let bo = try await world.player()
      var sent: [Int64] = []
      for index in 0..<120 {
        let (from, to) = index % 3 == 0 ? (bo, ann) : (ann, bo)
        sent.append(try await Self.send(world, from: from, to: to, "#\(index)").id)
      }
      let thread = try await world.client.messages.listThreads(.init(), options: ann.options)
        .threads[0].id
      let first = try await world.client.messages.loadMessages(
        .init(threadID: thread), options: ann.options)
      #expect(first.messages.count == 50)
      #expect(first.nextBeforeMessageID == first.messages.last?.id)
      #expect(try await Self.loaded(world, ann, thread: thread).map(\.id) == sent.reversed())
      #expect(
        try await Self.loaded(world, bo, thread: thread, limit: 7).map(\.id) == sent.reversed())
      #expect(try await Self.loaded(world, bo, thread: thread, limit: 40).count == 120)
      #expect(try await Self.synced(world, ann).map(\.id) == sent)
      #expect(try await Self.synced(world, bo, limit: 50).map(\.id) == sent)
      #expect(try await Self.synced(world, bo, limit: 1).map(\.id) == sent)
      let exact = try await world.client.messages.syncMessages(
        .init(afterMessageID: sent[59], limit: 60), options: ann.options)
      #expect(exact.messages.map(\.id) == Array(sent[60...]) && !exact.more)
      for (limit, load) in [(Int32(51), true), (-1, true), (501, false)] {
        let refused = await rpcError {
          if load {
            _ = try await world.client.messages.loadMessages(
              .init(threadID: thread, limit: limit), options: ann.options)
          } else {
            _ = try await world.client.messages.syncMessages(
              .init(limit: limit), options: ann.options)
          }
        }
        #expect(refused?.reason == "LIMIT_OUT_OF_RANGE")
        #expect(refused?.violations.map(\.field) == ["limit"])
      }
      let outsider = try await world.player()
      let hidden = await rpcError {
        _ = try await world.client.messages.loadMessages(
          .init(threadID: thread), options: outsider.options)
      }
      #expect(hidden?.reason == "THREAD_NOT_FOUND")
    }
  }

  // MARK: Blocking

  @Test(
    "a blocked sender is refused nothing, and the blocker never sees what they sent",
    arguments: StoreKind.allCases)
  func blocking_hidesFromTheBlocker(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let bo = try await world.player()
      let before = try await Self.send(world, from: bo, to: ann, "before")
      try await world.store.block(blockerID: ann.id, blockedID: bo.id, now: 0)
      let during = try await Self.send(world, from: bo, to: ann, "during")
      #expect(during.threadID == before.threadID && during.recipientID == ann.id)
      #expect(try await Self.synced(world, bo).map(\.id) == [before.id, during.id])
      let blocked = await rpcError { _ = try await Self.send(world, from: ann, to: bo, "hey") }
      #expect(blocked?.code == .failedPrecondition && blocked?.reason == "PLAYER_BLOCKED")
      // Acknowledging the hidden message does nothing, even when its id is guessed.
      let ack = try await world.client.messages.ackDelivered(
        .init(messageIDs: [during.id]), options: ann.options)
      #expect(ack.acknowledged == 0)
      _ = try await world.store.unblock(blockerID: ann.id, blockedID: bo.id)
      let after = try await Self.send(world, from: bo, to: ann, "after")
      #expect(try await Self.synced(world, ann).map(\.id) == [before.id, after.id])
      #expect(try await Self.received(world, ann) == [before.id, after.id])
      let threads = try await world.client.messages.listThreads(.init(), options: ann.options)
      #expect(threads.threads.map(\.unreadCount) == [2] && threads.totalUnread == 2)
      #expect(try await Self.receipts(world, bo).isEmpty)
    }
  }

  @Test(
    "property 17: the blocker's view never holds a message sent while they blocked its sender",
    arguments: StoreKind.allCases)
  func property17_blockedMessagesNeverReachTheBlocker(kind: StoreKind) async throws {
    enum Step: Sendable {
      case send(Int, Int)
      case block(Int, Int)
      case unblock(Int, Int)
      case read(Int, Int)
    }
    let steps = Generator { rng -> [Step] in
      (0..<Int.random(in: 1...24, using: &rng)).map { _ in
        let from = Int.random(in: 0..<3, using: &rng)
        let to = (from + Int.random(in: 1...2, using: &rng)) % 3
        return switch Int.random(in: 0..<10, using: &rng) {
        case 0..<6: .send(from, to)
        case 6..<8: .block(from, to)
        case 8: .unblock(from, to)
        default: .read(from, to)
        }
      }
    }
    try await withPlayerWorld(kind) { world in
      await propertyCheck(count: 25, input: steps) { steps in
        var players: [PlayerWorld.Player] = []
        for _ in 0..<3 { players.append(try await world.player()) }
        // Oracle state.
        var blocks = Set<[Int]>()
        var messages: [(id: Int64, from: Int, to: Int, hidden: Bool)] = []
        var read = Set<Int64>()
        var threadOf: [Set<Int>: Int64] = [:]
        for step in steps {
          switch step {
          case .send(let from, let to):
            let refusal = await rpcError {
              let sent = try await Self.send(world, from: players[from], to: players[to])
              messages.append((sent.id, from, to, blocks.contains([to, from])))
              threadOf[[from, to]] = sent.threadID
            }
            #expect(refusal?.reason == (blocks.contains([from, to]) ? "PLAYER_BLOCKED" : nil))
          case .block(let blocker, let blocked):
            try await world.store.block(
              blockerID: players[blocker].id, blockedID: players[blocked].id, now: 0)
            blocks.insert([blocker, blocked])
          case .unblock(let blocker, let blocked):
            _ = try await world.store.unblock(
              blockerID: players[blocker].id, blockedID: players[blocked].id)
            blocks.remove([blocker, blocked])
          case .read(let reader, let other):
            guard let thread = threadOf[[reader, other]] else { continue }
            let visible = messages.contains {
              ($0.from == reader && $0.to == other)
                || ($0.to == reader && $0.from == other && !$0.hidden)
            }
            let refusal = await rpcError {
              _ = try await world.client.messages.markRead(
                .init(threadID: thread), options: players[reader].options)
            }
            #expect(refusal?.reason == (visible ? nil : "THREAD_NOT_FOUND"))
            if visible {
              read.formUnion(
                messages.filter { $0.to == reader && $0.from == other && !$0.hidden }.map(\.id))
            }
          }
        }
        for (index, player) in players.enumerated() {
          let seen = messages.filter { $0.from == index || ($0.to == index && !$0.hidden) }
          #expect(try await Self.synced(world, player).map(\.id) == seen.map(\.id))
          let incoming = messages.filter { $0.to == index && !$0.hidden }
          #expect(try await Self.received(world, player) == incoming.map(\.id))
          let list = try await world.client.messages.listThreads(.init(), options: player.options)
          let others = Set(seen.map { $0.from == index ? $0.to : $0.from })
          #expect(Set(list.threads.map(\.other.userID)) == Set(others.map { players[$0].id }))
          #expect(list.totalUnread == Int32(incoming.filter { !read.contains($0.id) }.count))
          for thread in list.threads {
            let other = players.firstIndex { $0.id == thread.other.userID }!
            let inThread = seen.filter { $0.from == other || $0.to == other }
            #expect(thread.lastMessage.id == inThread.last?.id)
            #expect(
              thread.unreadCount
                == Int32(inThread.filter { $0.to == index && !read.contains($0.id) }.count))
            #expect(
              try await Self.loaded(world, player, thread: thread.id).map(\.id)
                == inThread.map(\.id).reversed())
          }
        }
      }
    }
  }

  // MARK: Deleting

  @Test(
    "property 18: a deleted conversation leaves the deleter's view only, until a new message",
    arguments: StoreKind.allCases)
  func property18_softDelete(kind: StoreKind) async throws {
    enum Step: Sendable {
      case send(Int, Int)
      case delete(Int, Int)
    }
    let steps = Generator { rng -> [Step] in
      (0..<Int.random(in: 1...24, using: &rng)).map { _ in
        let from = Int.random(in: 0..<3, using: &rng)
        let to = (from + Int.random(in: 1...2, using: &rng)) % 3
        return Int.random(in: 0..<3, using: &rng) == 0 ? .delete(from, to) : .send(from, to)
      }
    }
    try await withPlayerWorld(kind) { world in
      await propertyCheck(count: 25, input: steps) { steps in
        var players: [PlayerWorld.Player] = []
        for _ in 0..<3 { players.append(try await world.player()) }
        // Oracle: every message, and the id each player cleared each pair through.
        var messages: [(id: Int64, from: Int, to: Int)] = []
        var cleared: [[Int]: Int64] = [:]
        var threadOf: [Set<Int>: Int64] = [:]
        for step in steps {
          switch step {
          case .send(let from, let to):
            let sent = try await Self.send(world, from: players[from], to: players[to])
            messages.append((sent.id, from, to))
            threadOf[[from, to]] = sent.threadID
          case .delete(let player, let other):
            guard let thread = threadOf[[player, other]] else { continue }
            _ = try await world.client.messages.deleteConversation(
              .init(threadID: thread), options: players[player].options)
            cleared[[player, other]] =
              messages.filter { Set([$0.from, $0.to]) == [player, other] }.last!.id
          }
        }
        for (index, player) in players.enumerated() {
          func visible(with other: Int) -> [Int64] {
            messages.filter {
              Set([$0.from, $0.to]) == [index, other]
                && $0.id > cleared[[index, other], default: 0]
            }.map(\.id)
          }
          let list = try await world.client.messages.listThreads(.init(), options: player.options)
          let expected = (0..<3).filter { $0 != index && !visible(with: $0).isEmpty }
          #expect(Set(list.threads.map(\.other.userID)) == Set(expected.map { players[$0].id }))
          #expect(
            list.threads.map(\.lastMessage.id) == list.threads.map(\.lastMessage.id).sorted(by: >))
          var total = 0
          for other in expected {
            let ids = visible(with: other)
            let unread = messages.filter {
              $0.to == index && $0.from == other && ids.contains($0.id)
            }
            total += unread.count
            let thread = try #require(list.threads.first { $0.other.userID == players[other].id })
            #expect(thread.lastMessage.id == ids.last)
            #expect(thread.unreadCount == Int32(unread.count))
            #expect(
              try await Self.loaded(world, player, thread: thread.id).map(\.id) == ids.reversed())
          }
          #expect(list.totalUnread == Int32(total))
          let everything = (0..<3).filter { $0 != index }.flatMap { visible(with: $0) }.sorted()
          #expect(try await Self.synced(world, player).map(\.id) == everything)
        }
      }
    }
  }

  @Test(
    "deleting hides the thread from the deleter only; a new message brings back only itself",
    arguments: StoreKind.allCases)
  func delete_thenNewMessage(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let ann = try await world.player()
      let bo = try await world.player()
      let old = try await Self.send(world, from: bo, to: ann, "old")
      _ = try await world.client.messages.deleteConversation(
        .init(threadID: old.threadID), options: ann.options)
      #expect(
        try await world.client.messages.listThreads(.init(), options: ann.options).threads.isEmpty)
      #expect(try await Self.loaded(world, ann, thread: old.threadID).isEmpty)
      #expect(try await Self.loaded(world, bo, thread: old.threadID).map(\.id) == [old.id])
      let new = try await Self.send(world, from: bo, to: ann, "new")
      let list = try await world.client.messages.listThreads(.init(), options: ann.options)
      #expect(list.threads.map(\.lastMessage.id) == [new.id] && list.totalUnread == 1)
      #expect(try await Self.loaded(world, ann, thread: old.threadID).map(\.id) == [new.id])
      let stranger = try await world.player()
      let refused = await rpcError {
        _ = try await world.client.messages.deleteConversation(
          .init(threadID: old.threadID), options: stranger.options)
      }
      #expect(refused?.reason == "THREAD_NOT_FOUND")
    }
  }
}
