import BadmintonAPI
public import BadmintonDomain
public import BadmintonRPC
public import BadmintonStore
import Foundation
import Synchronization

extension DomainError: RPCErrorConvertible {
  /// The error as a caller sees it.
  public var rpcError: RPCError {
    let code: StatusCode =
      switch kind {
      case .invalidArgument: .invalidArgument
      case .notFound: .notFound
      case .alreadyExists: .alreadyExists
      case .permissionDenied: .permissionDenied
      case .failedPrecondition: .failedPrecondition
      case .unauthenticated: .unauthenticated
      }
    return RPCError(
      code: code, reason: reason, message: LocalizedText(en: en, zhCN: zhCN),
      violations: violations.map {
        RPCError.Violation(
          field: $0.field, reason: $0.reason,
          description: LocalizedText(en: $0.en, zhCN: $0.zhCN))
      })
  }
}

/// The wall clock the services read; tests set their own.
public protocol WallClock: Sendable {
  /// Milliseconds since 1970-01-01 UTC.
  func nowUnixMs() -> Int64
}

/// The system's clock.
public struct SystemWallClock: WallClock {
  /// The system clock.
  public init() {}

  public func nowUnixMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}

/// Who has blocked whom. Nearby players and match candidates leave out players blocked either
/// way; messages, friend requests and room invitations from a blocked player never reach the
/// blocker.
public protocol BlockRelations: Sendable {
  /// Every player `playerID` has blocked or was blocked by.
  func playersBlocked(eitherWayWith playerID: Int64) async throws -> Set<Int64>
  /// Whether `blockerID` has blocked `playerID`.
  func hasBlocked(_ blockerID: Int64, _ playerID: Int64) async throws -> Bool
}

/// Every block, in memory: loaded from the store at start and changed after each committed block
/// or unblock, so that a search asks no query of the store.
public final class BlockBook: BlockRelations {
  private struct State {
    /// Blocker to the players they blocked.
    var blocked: [Int64: Set<Int64>] = [:]
    /// Blocked player to the players who blocked them.
    var blockedBy: [Int64: Set<Int64>] = [:]
  }

  private let state = Mutex(State())

  /// An empty book.
  public init() {}

  /// The book of every block in `store`.
  public static func loaded(from store: any SocialStore) async throws -> BlockBook {
    let book = BlockBook()
    for (blockerID, blockedID) in try await store.allBlocks() {
      book.add(blockerID: blockerID, blockedID: blockedID)
    }
    return book
  }

  /// Records a committed block.
  public func add(blockerID: Int64, blockedID: Int64) {
    state.withLock {
      $0.blocked[blockerID, default: []].insert(blockedID)
      $0.blockedBy[blockedID, default: []].insert(blockerID)
    }
  }

  /// Records a committed unblock.
  public func remove(blockerID: Int64, blockedID: Int64) {
    state.withLock {
      $0.blocked[blockerID]?.remove(blockedID)
      if $0.blocked[blockerID]?.isEmpty == true { $0.blocked[blockerID] = nil }
      $0.blockedBy[blockedID]?.remove(blockerID)
      if $0.blockedBy[blockedID]?.isEmpty == true { $0.blockedBy[blockedID] = nil }
    }
  }

  public func playersBlocked(eitherWayWith playerID: Int64) async throws -> Set<Int64> {
    state.withLock { ($0.blocked[playerID] ?? []).union($0.blockedBy[playerID] ?? []) }
  }

  public func hasBlocked(_ blockerID: Int64, _ playerID: Int64) async throws -> Bool {
    state.withLock { $0.blocked[blockerID]?.contains(playerID) == true }
  }
}

extension PlayerCard {
  /// How others see `player` in lists.
  init(_ player: PlayerRecord) {
    let display = player.displayLevel
    self.init(
      userID: player.id, nickname: player.nickname, displayLevel: Int32(display.level),
      newPlayer: display.isNewPlayer, reputation: PlayersService.summary(player.reputation))
  }
}
