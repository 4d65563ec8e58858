public import BadmintonRPC

/// Why the session refused or gave up on something, apart from the server's own errors.
public enum ClientError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The write queue holds `limit` writes already; nothing was queued. The app should tell the
  /// player to go online, or try again once `pendingWrites` has fallen.
  case queueFull(limit: Int)
  /// `write` was given a method that takes no idempotency key (a read, or Register, Login,
  /// Logout): call it with `call` instead.
  case notAWrite(String)
  /// The call needs a session and the session is signed out: log in first.
  case signedOut
  /// The session was closed. A write that was queued stays in the queue file and is sent by
  /// the next session over it; its answer then comes through that session's `outcomes`.
  case closed

  public var description: String {
    switch self {
    case .queueFull(let limit): "The write queue is full (\(limit) writes); nothing was queued."
    case .notAWrite(let path): "\(path) takes no idempotency key; call it with call(_:_:)."
    case .signedOut: "The session is signed out; log in first."
    case .closed: "The session was closed."
    }
  }
}

extension RPCError {
  /// A queued write made while another player was signed in, dropped when a different player
  /// logged in on this session.
  public static let clientAccountChanged = RPCError(
    code: .failedPrecondition, reason: "CLIENT_ACCOUNT_CHANGED",
    message: LocalizedText(
      en: "Another player signed in before this write was sent; it was not sent.",
      zhCN: "在此操作发送前已有其他玩家登录，该操作未发送。"))
}

/// The definite answer to a queued write whose caller was no longer waiting for it: a write
/// replayed after an app restart, or one whose caller's task was cancelled.
public struct WriteOutcome: Sendable, Hashable {
  /// The method's path, e.g. `/badminton.v1.Matching/PostAvailability`.
  public var methodPath: String
  /// The write's idempotency key.
  public var key: String
  /// The encoded response, or the error the server answered with.
  public var result: Result<[UInt8], RPCError>

  /// An outcome.
  public init(methodPath: String, key: String, result: Result<[UInt8], RPCError>) {
    self.methodPath = methodPath
    self.key = key
    self.result = result
  }

  /// The response decoded as `type`, or the server's error thrown.
  public func response<Response: ProtobufMessage>(as type: Response.Type) throws -> Response {
    let bytes = try result.get()
    do {
      return try Response(serializedBytes: bytes)
    } catch {
      throw RPCError.responseMalformed(Response.fullName)
    }
  }

  /// The response of `method`, decoded, or the server's error thrown; nil when this outcome is
  /// of another method.
  public func response<Request, Response: ProtobufMessage>(
    of method: MethodDescriptor<Request, Response>
  ) throws -> Response? {
    guard methodPath == method.path else { return nil }
    return try response(as: Response.self)
  }
}

/// What a write's attempt that failed with an error means for the write.
public enum WriteVerdict: Sendable, Hashable {
  /// The answer is definite: the write leaves the queue and the error goes to its caller.
  case definite
  /// The server may or may not have done it: send it again with the same key once connected.
  case retryAfterReconnect
  /// The server refused it for load: send it again with the same key after at least this long.
  case retryAfter(Duration)
  /// The session ended: keep it queued, sign out, send it again after the next login.
  case signIn

  /// The verdict on `error`. UNAVAILABLE (a connection not made or lost, a server shutting
  /// down or without its database, ...), DEADLINE_EXCEEDED and CANCELLED (a call is only
  /// cancelled under a live session by its connection) are not definite; RESOURCE_EXHAUSTED
  /// with a `retry_after` waits that long; UNAUTHENTICATED signs out; everything else is
  /// definite, IDEMPOTENCY_KEY_REUSED and RESOURCE_EXHAUSTED without `retry_after` included.
  public static func of(_ error: RPCError) -> WriteVerdict {
    switch error.code {
    case .unavailable, .deadlineExceeded, .cancelled:
      return .retryAfterReconnect
    case .resourceExhausted:
      if let wait = error.retryAfter { return .retryAfter(wait) }
      return .definite
    case .unauthenticated:
      return .signIn
    default:
      return .definite
    }
  }
}
