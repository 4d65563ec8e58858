public import BadmintonDomain
public import BadmintonStore

// Not built yet: each method below throws until it is.
extension PostgresStore: SocialStore {
  public func sendFriendRequest(
    from senderID: Int64, to recipientID: Int64, now: Int64,
    notify: @escaping @Sendable (FriendRequestRecord) -> OutgoingEvents
  ) async throws -> FriendRequestRecord {
    throw NotBuilt()
  }

  public func answerFriendRequest(
    id: Int64, recipientID: Int64, accept: Bool, now: Int64,
    notify: @escaping @Sendable (FriendRequestRecord) -> OutgoingEvents
  ) async throws -> FriendRequestRecord {
    throw NotBuilt()
  }

  public func friendRequest(id: Int64) async throws -> FriendRequestRecord? {
    throw NotBuilt()
  }

  public func friendRequests(playerID: Int64, outgoing: Bool, beforeID: Int64?, limit: Int)
    async throws -> [FriendRequestRecord]
  {
    throw NotBuilt()
  }

  public func friends(playerID: Int64) async throws -> [FriendRecord] {
    throw NotBuilt()
  }

  public func friends(playerID: Int64, afterID: Int64?, limit: Int) async throws -> [FriendRecord] {
    throw NotBuilt()
  }

  public func areFriends(_ playerID: Int64, _ otherID: Int64) async throws -> Bool {
    throw NotBuilt()
  }

  public func removeFriend(playerID: Int64, friendID: Int64) async throws -> Bool {
    throw NotBuilt()
  }

  public func block(blockerID: Int64, blockedID: Int64, now: Int64) async throws {
    throw NotBuilt()
  }

  public func unblock(blockerID: Int64, blockedID: Int64) async throws -> Bool {
    throw NotBuilt()
  }

  public func blocks(blockerID: Int64) async throws -> [BlockRecord] {
    throw NotBuilt()
  }

  public func playersBlocked(eitherWayWith playerID: Int64) async throws -> Set<Int64> {
    throw NotBuilt()
  }

  public func hasBlocked(_ blockerID: Int64, _ playerID: Int64) async throws -> Bool {
    throw NotBuilt()
  }

  public func allBlocks() async throws -> [(blockerID: Int64, blockedID: Int64)] {
    throw NotBuilt()
  }

  public func replayBlocks(_ apply: @escaping @Sendable (StoreChange) -> Void) async throws {
    throw NotBuilt()
  }
}

// Not built yet: each method below throws until it is.
extension PostgresStore: ScheduleStore {
  public func setDayStatus(_ record: DayStatusRecord) async throws {
    throw NotBuilt()
  }

  public func dayStatuses(playerIDs: [Int64], from first: LocalDate, through last: LocalDate)
    async throws -> [Int64: [DayStatusRecord]]
  {
    throw NotBuilt()
  }
}
