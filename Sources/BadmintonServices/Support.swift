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
      case .resourceExhausted: .resourceExhausted
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

extension PlayerCard {
  /// How others see `player` in lists.
  init(_ player: PlayerRecord) {
    let display = player.displayLevel
    self.init(
      userID: player.id, nickname: player.nickname, displayLevel: Int32(display.level),
      newPlayer: display.isNewPlayer, reputation: PlayersService.summary(player.reputation))
  }
}
