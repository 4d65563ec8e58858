public import BadmintonDomain
public import BadmintonStore

// Not built yet: each method below throws until it is.
extension PostgresStore: MessageStore {
  public func sendMessage(
    _ new: NewMessage, notify: @escaping @Sendable (MessageRecord) -> OutgoingEvents
  ) async throws -> MessageSendOutcome {
    throw NotBuilt()
  }

  public func acknowledgeDelivered(
    messageIDs: [Int64], recipientID: Int64, now: Int64,
    notify: @escaping @Sendable ([MessageReceiptRecord]) -> OutgoingEvents
  ) async throws -> Int {
    throw NotBuilt()
  }

  public func markRead(
    threadID: Int64, playerID: Int64, upToMessageID: Int64?, now: Int64,
    notify: @escaping @Sendable (MessageReceiptRecord) -> OutgoingEvents
  ) async throws -> Int {
    throw NotBuilt()
  }

  public func messages(threadID: Int64, playerID: Int64, beforeMessageID: Int64?, limit: Int)
    async throws -> [MessageRecord]
  {
    throw NotBuilt()
  }

  public func messages(playerID: Int64, afterMessageID: Int64, limit: Int) async throws
    -> [MessageRecord]
  {
    throw NotBuilt()
  }

  public func threads(playerID: Int64, beforeLastMessageID: Int64?, limit: Int) async throws
    -> MessageThreadPage
  {
    throw NotBuilt()
  }

  public func unreadCount(playerID: Int64) async throws -> Int {
    throw NotBuilt()
  }

  public func deleteConversation(threadID: Int64, playerID: Int64) async throws {
    throw NotBuilt()
  }
}
