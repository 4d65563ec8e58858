import BadmintonAPI
import BadmintonDomain
import BadmintonRPC
import BadmintonServices
import BadmintonStore
import PropertyBased
import StoreTestSupport
import Testing

/// Pages of messages and threads fill a byte budget below the frame limit and end early instead
/// of failing; ListThreads pages with tokens that cannot be forged.
@Suite("Message pages")
struct MessagePagesTests {
  /// The smallest frame body the services run with: one near-maximum message per page.
  static let smallBody = ResponseBudget.minimumBodySize

  /// A legal message of 1000 characters and 39,000 UTF-8 bytes: each an `e` with 19 accents.
  static let nearMaximumText = String(
    repeating: "e" + String(repeating: "\u{301}", count: 19), count: 1000)

  private static func send(
    _ world: PlayerWorld, from sender: PlayerWorld.Player, to recipient: PlayerWorld.Player,
    _ text: String
  ) async throws -> DirectMessage {
    try await world.client.messages.sendMessage(
      .init(
        recipientID: recipient.id, clientMessageID: "m-\(PlayerWorld.newPhone())", text: text),
      options: sender.options)
  }

  /// Whether an answer of `payload` bytes fits a frame body of `limit`.
  private static func fits(_ message: some ProtobufMessage, _ limit: Int) -> Bool {
    FrameFormat.fits(payload: message.serializedSize, limit: limit)
  }

  /// Every message `player` can see through SyncMessages, checking that each page fits `limit`.
  private static func synced(
    _ world: PlayerWorld, _ player: PlayerWorld.Player, limit: Int, pageLimit: Int32 = 0
  ) async throws -> [Int64] {
    var all: [Int64] = []
    var cursor: Int64 = 0
    while true {
      let page = try await world.client.messages.syncMessages(
        .init(afterMessageID: cursor, limit: pageLimit), options: player.options)
      #expect(fits(page, limit))
      #expect(!page.messages.isEmpty || !page.more)
      all += page.messages.map(\.id)
      cursor = page.nextAfterMessageID
      if !page.more { return all }
    }
  }

  /// Every message of a thread through LoadMessages, checking that each page fits `limit`.
  private static func loaded(
    _ world: PlayerWorld, _ player: PlayerWorld.Player, thread: Int64, limit: Int
  ) async throws -> [Int64] {
    var all: [Int64] = []
    var before: Int64 = 0
    repeat {
      let page = try await world.client.messages.loadMessages(
        .init(threadID: thread, beforeMessageID: before), options: player.options)
      #expect(fits(page, limit))
      all += page.messages.map(\.id)
      before = page.nextBeforeMessageID
    } while before != 0
    return all
  }

  /// Every thread through ListThreads pages of `pageSize`, checking that each page fits `limit`
  /// and carries the badge `unread`.
  private static func listed(
    _ world: PlayerWorld, _ player: PlayerWorld.Player, pageSize: Int32, limit: Int, unread: Int32
  ) async throws -> [MessageThread] {
    var all: [MessageThread] = []
    var token = ""
    repeat {
      let page = try await world.client.messages.listThreads(
        .init(pageSize: pageSize, pageToken: token), options: player.options)
      #expect(fits(page, limit))
      #expect(page.totalUnread == unread)
      #expect(page.threads.count <= Int(pageSize == 0 ? 20 : pageSize))
      #expect(!page.threads.isEmpty || page.nextPageToken.isEmpty)
      all += page.threads
      token = page.nextPageToken
    } while !token.isEmpty
    return all
  }

  @Test("the largest thread a message's rules allow fits the smallest budget")
  func largestItem_fitsSmallestBudget() throws {
    let text = String(repeating: "😀", count: 10_000)
    #expect(text.utf8.count == MessageRules.maximumBytes)
    let largest = MessageThread(
      id: .max,
      other: PlayerCard(
        userID: .max, nickname: String(repeating: "é", count: 120), displayLevel: .max,
        newPlayer: true,
        reputation: ReputationSummary(
          evaluationCount: .max, averageSkillAccuracy: 5, punctualityPercentage: 100,
          averageCharacterRating: 5)),
      lastMessage: DirectMessage(
        id: .max, threadID: .max, senderID: .max, recipientID: .max,
        clientMessageID: String(repeating: "é", count: 128), text: text, sentAtUnixMs: .max,
        deliveredAtUnixMs: .max, readAtUnixMs: .max),
      unreadCount: .max)
    let budget = ResponseBudget(maximumBodySize: ResponseBudget.minimumBodySize)
    #expect(ResponseBudget.encodedSize(largest) * 3 / 2 < budget.itemBytes)
    #expect(budget.fitting([largest, largest]) == 1)
    #expect(budget.fitting([MessageThread]()) == 0)
  }

  @Test(
    "the services refuse to start with a response limit below one page of the largest items",
    arguments: StoreKind.allCases)
  func start_refusesTinyResponseLimit(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let tooSmall = ResponseBudget.minimumBodySize - 1
      await #expect(throws: PlayerServicesError.responseLimitTooSmall(tooSmall)) {
        _ = try await PlayerServices.start(
          store: store,
          configuration: PlayerServicesConfiguration(
            passwordCost: .testing, maximumResponseBytes: tooSmall))
      }
    }
  }

  @Test(
    "170 near-maximum messages from one stranger page through the default frame limit",
    arguments: StoreKind.allCases)
  func manyLargeMessages_pageUnderDefaultLimit(kind: StoreKind) async throws {
    let limit = WireConfiguration().maximumBodySize
    try await withPlayerWorld(kind, maximumBodySize: limit) { world in
      let victim = try await world.player()
      let stranger = try await world.player()
      #expect(try MessageRules.validateText(Self.nearMaximumText).utf8.count == 39_000)
      var sent: [Int64] = []
      for _ in 0..<170 {
        sent.append(try await Self.send(world, from: stranger, to: victim, Self.nearMaximumText).id)
      }
      let first = try await world.client.messages.syncMessages(.init(), options: victim.options)
      #expect(first.more && first.messages.count < 170)
      #expect(try await Self.synced(world, victim, limit: limit) == sent)
      let thread = try #require(first.messages.first?.threadID)
      #expect(
        try await Self.loaded(world, victim, thread: thread, limit: limit) == sent.reversed())
      let threads = try await Self.listed(
        world, victim, pageSize: 0, limit: limit, unread: 170)
      #expect(threads.map(\.id) == [thread])
    }
  }

  @Test(
    "property: at the smallest frame limit, pages together hold every message and thread",
    arguments: StoreKind.allCases)
  func pages_concatenateToWholeList(kind: StoreKind) async throws {
    let limit = Self.smallBody
    // Each step: which of four strangers writes, or the player writes back, and how long.
    let step = Generator { rng in
      (Int.random(in: 0...4, using: &rng), Int.random(in: 0..<3, using: &rng))
    }
    await propertyCheck(count: 6, input: step.array(of: 1...14), Gen.int(in: 0...4)) {
      steps, size in
      do {
        try await withPlayerWorld(kind, maximumBodySize: limit) { world in
          let player = try await world.player()
          var strangers: [PlayerWorld.Player] = []
          for _ in 0..<4 { strangers.append(try await world.player()) }
          var sent: [DirectMessage] = []
          var unread = 0
          for (index, (who, length)) in steps.enumerated() {
            let text =
              length == 0
              ? "hi \(index)"
              : length == 1
                ? String(repeating: "羽", count: 1000)
                : Self.nearMaximumText
            let other = strangers[who % 4]
            if who == 4 {
              sent.append(try await Self.send(world, from: player, to: other, text))
            } else {
              sent.append(try await Self.send(world, from: other, to: player, text))
              unread += 1
            }
          }
          // Oracle: the sent messages in id order, and per thread the newest.
          #expect(try await Self.synced(world, player, limit: limit) == sent.map(\.id))
          var newest: [Int64: Int64] = [:]
          for message in sent { newest[message.threadID] = message.id }
          let expected = newest.sorted { $0.value > $1.value }
          let pageSize = Int32([0, 1, 2, 3, 100][size])
          let threads = try await Self.listed(
            world, player, pageSize: pageSize, limit: limit, unread: Int32(unread))
          #expect(threads.map(\.id) == expected.map(\.key))
          #expect(threads.map(\.lastMessage.id) == expected.map(\.value))
          for thread in Set(sent.map(\.threadID)) {
            #expect(
              try await Self.loaded(world, player, thread: thread, limit: limit)
                == sent.filter { $0.threadID == thread }.map(\.id).reversed())
          }
        }
      } catch {
        Issue.record("\(error)")
      }
    }
  }

  @Test(
    "ListThreads refuses page tokens it never gave out and sizes out of range",
    arguments: StoreKind.allCases)
  func listThreads_refusesForgedTokens(kind: StoreKind) async throws {
    try await withPlayerWorld(kind) { world in
      let player = try await world.player()
      let other = try await world.player()
      _ = try await Self.send(world, from: other, to: player, "one")
      _ = try await Self.send(world, from: try await world.player(), to: player, "two")
      let first = try await world.client.messages.listThreads(
        .init(pageSize: 1), options: player.options)
      #expect(first.threads.count == 1 && first.totalUnread == 2)
      let second = try await world.client.messages.listThreads(
        .init(pageSize: 1, pageToken: first.nextPageToken), options: player.options)
      #expect(second.threads.count == 1 && second.nextPageToken.isEmpty)
      #expect(second.threads[0].lastMessage.id < first.threads[0].lastMessage.id)
      let id = String(first.threads[0].lastMessage.id)
      for token in [
        "nonsense", "threads.+\(id)", "threads.0\(id)", "threads. \(id)", "threads.-0",
        "threads.nan", "threads.-inf", "threads.-9223372036854775808", "\(id)", "threads.\(id).1",
      ] {
        let refused = await rpcError {
          _ = try await world.client.messages.listThreads(
            .init(pageToken: token), options: player.options)
        }
        #expect(refused?.code == .invalidArgument)
        #expect(refused?.reason == "PAGE_TOKEN_INVALID")
        #expect(refused?.violations.map(\.field) == ["page_token"])
      }
      for size: Int32 in [-1, 101] {
        let refused = await rpcError {
          _ = try await world.client.messages.listThreads(
            .init(pageSize: size), options: player.options)
        }
        #expect(refused?.reason == "PAGE_SIZE_OUT_OF_RANGE")
        #expect(refused?.violations.map(\.field) == ["page_size"])
      }
    }
  }
}
