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
      case .unavailable: .unavailable
      }
    return RPCError(
      code: code, reason: reason, message: LocalizedText(en: en, zhCN: zhCN),
      violations: violations.map {
        RPCError.Violation(
          field: $0.field, reason: $0.reason,
          description: LocalizedText(en: $0.en, zhCN: $0.zhCN))
      }, retryAfter: retryAfterMs.map { .milliseconds(max(1, $0)) })
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
  /// The same players, from memory, without waiting: what a call served inline on an event
  /// loop (FindMatches) reads.
  func playersBlockedNow(eitherWayWith playerID: Int64) -> Set<Int64>
  /// Whether `blockerID` has blocked `playerID`.
  func hasBlocked(_ blockerID: Int64, _ playerID: Int64) async throws -> Bool
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
