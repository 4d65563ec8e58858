/// The errors the RPC core itself produces, each with its stable reason and both languages.
extension RPCError {
  // MARK: Calls

  /// No handler is registered for `method`.
  public static func methodNotFound(_ method: String) -> RPCError {
    RPCError(
      code: .unimplemented, reason: "METHOD_NOT_FOUND",
      message: LocalizedText(
        en: "The server has no method \(method).",
        zhCN: "服务器没有方法 \(method)。"))
  }

  /// The request payload does not parse as the method's request message.
  public static func requestMalformed(_ type: String) -> RPCError {
    RPCError(
      code: .invalidArgument, reason: "REQUEST_MALFORMED",
      message: LocalizedText(
        en: "The request payload is not a valid \(type) message.",
        zhCN: "请求内容不是有效的 \(type) 消息。"))
  }

  /// A string field of the request, at path `field` (e.g. `ratings[1].note`), holds U+0000,
  /// which no text in the product may hold.
  public static func stringContainsNUL(field: String) -> RPCError {
    let text = LocalizedText(
      en: "The field \(field) contains the character U+0000, which text may not hold.",
      zhCN: "字段 \(field) 含有字符 U+0000，文本中不能包含该字符。")
    return RPCError(
      code: .invalidArgument, reason: "STRING_CONTAINS_NUL", message: text,
      violations: [Violation(field: field, reason: "STRING_CONTAINS_NUL", description: text)])
  }

  /// The response payload does not parse as the method's response message (client side).
  public static func responseMalformed(_ type: String) -> RPCError {
    RPCError(
      code: .internal, reason: "RESPONSE_MALFORMED",
      message: LocalizedText(
        en: "The response payload is not a valid \(type) message.",
        zhCN: "响应内容不是有效的 \(type) 消息。"))
  }

  /// An answer would exceed the frame limit; the call fails instead of the connection.
  public static func responseTooLarge(limit: Int) -> RPCError {
    RPCError(
      code: .resourceExhausted, reason: "RESPONSE_TOO_LARGE",
      message: LocalizedText(
        en: "The answer would exceed the frame limit of \(limit) bytes.",
        zhCN: "响应超过了 \(limit) 字节的帧上限。"))
  }

  /// A request would exceed the frame limit (client side); it is not sent.
  public static func requestTooLarge(limit: Int) -> RPCError {
    RPCError(
      code: .resourceExhausted, reason: "REQUEST_TOO_LARGE",
      message: LocalizedText(
        en: "The request would exceed the frame limit of \(limit) bytes and was not sent.",
        zhCN: "请求超过了 \(limit) 字节的帧上限，未发送。"))
  }

  /// A request longer than its method's limit: the server refuses it before decoding it, and
  /// the client before sending it (its other calls and its connection are untouched).
  public static func requestOverMethodLimit(limit: Int) -> RPCError {
    RPCError(
      code: .resourceExhausted, reason: "REQUEST_TOO_LARGE",
      message: LocalizedText(
        en: "The request exceeds this method's limit of \(limit) bytes.",
        zhCN: "请求超过了此方法 \(limit) 字节的上限。"))
  }

  /// The call's deadline passed before it finished.
  public static let deadlineExceeded = RPCError(
    code: .deadlineExceeded, reason: "DEADLINE_EXCEEDED",
    message: LocalizedText(
      en: "The call did not finish before its deadline.",
      zhCN: "请求超时，未能在截止时间前完成。"))

  /// The caller cancelled the call.
  public static let cancelled = RPCError(
    code: .cancelled, reason: "CANCELLED",
    message: LocalizedText(en: "The call was cancelled.", zhCN: "请求已取消。"))

  /// The connection already has the maximum number of calls open.
  public static func tooManyConcurrentCalls(limit: Int) -> RPCError {
    RPCError(
      code: .resourceExhausted, reason: "TOO_MANY_CONCURRENT_CALLS",
      message: LocalizedText(
        en: "This connection already has \(limit) calls open; wait for one to finish.",
        zhCN: "服务器繁忙，请稍后再试（此连接已有 \(limit) 个进行中的请求）。"))
  }

  /// The wait a refusal for load suggests when the server cannot know when the load will
  /// pass (`SERVER_BUSY`, `TOO_MANY_CONNECTIONS`, ...): 1 second.
  public static let busyRetryAfter: Duration = .seconds(1)

  /// The calls open on the server already hold as many request bytes as it allows.
  public static let serverBusy = RPCError(
    code: .resourceExhausted, reason: "SERVER_BUSY",
    message: LocalizedText(
      en: "The server is busy; try again shortly.",
      zhCN: "服务器繁忙，请稍后再试"),
    retryAfter: busyRetryAfter)

  /// The server is shutting down and takes no new calls.
  public static let serverShuttingDown = RPCError(
    code: .unavailable, reason: "SERVER_SHUTTING_DOWN",
    message: LocalizedText(
      en: "The server is shutting down; try again on a new connection.",
      zhCN: "服务器正在关闭，请稍后重新连接再试。"))

  /// The server ended the call during shutdown because its grace period ran out.
  public static let shutdownGraceExpired = RPCError(
    code: .unavailable, reason: "SHUTDOWN_GRACE_EXPIRED",
    message: LocalizedText(
      en: "The server shut down before the call finished; try again.",
      zhCN: "服务器在请求完成前关闭，请重试。"))

  /// A handler failed with an error that is not meant for callers.
  public static let internalError = RPCError(
    code: .internal, reason: "INTERNAL_ERROR",
    message: LocalizedText(
      en: "The server failed to handle the call.",
      zhCN: "服务器处理请求时出错。"))

  /// The connection closed before the call was answered (client side).
  public static let connectionLost = RPCError(
    code: .unavailable, reason: "CONNECTION_LOST",
    message: LocalizedText(
      en: "The connection to the server was lost.",
      zhCN: "与服务器的连接已断开。"))

  /// The client could not connect to the server.
  public static func connectFailed(_ target: String) -> RPCError {
    RPCError(
      code: .unavailable, reason: "CONNECT_FAILED",
      message: LocalizedText(
        en: "Could not connect to \(target).",
        zhCN: "无法连接到 \(target)。"))
  }

  /// The client was closed.
  public static let clientClosed = RPCError(
    code: .cancelled, reason: "CLIENT_CLOSED",
    message: LocalizedText(en: "The client was closed.", zhCN: "客户端已关闭。"))

  // MARK: Connections (sent in GOAWAY)

  /// The connection sent no frame for the idle timeout.
  public static let idleTimeout = RPCError(
    code: .unavailable, reason: "IDLE_TIMEOUT",
    message: LocalizedText(
      en: "The connection was idle for too long and is closed.",
      zhCN: "连接空闲时间过长，已关闭。"))
}

extension RPCError {
  /// The server holds as many connections as it allows.
  static let tooManyConnections = RPCError(
    code: .resourceExhausted, reason: "TOO_MANY_CONNECTIONS",
    message: LocalizedText(
      en: "The server has too many connections open; try again shortly.",
      zhCN: "服务器的连接已满，请稍后再试。"),
    retryAfter: busyRetryAfter)

  /// The client's address holds as many connections as the server allows one address.
  static let tooManyConnectionsFromAddress = RPCError(
    code: .resourceExhausted, reason: "TOO_MANY_CONNECTIONS_FROM_ADDRESS",
    message: LocalizedText(
      en: "Too many connections are open from your address; close one and try again.",
      zhCN: "来自你的地址的连接过多，请关闭一个后再试。"),
    retryAfter: busyRetryAfter)
}

// MARK: TLS

extension RPCError {
  /// The reasons of the TLS errors, which no retry can cure: the client does not retry them.
  static let tlsReasons: Set<String> = [
    "TLS_REQUIRED", "TLS_CERTIFICATE_UNTRUSTED", "TLS_HOSTNAME_MISMATCH", "TLS_HANDSHAKE_FAILED",
  ]

  /// The server serves TLS only and the client spoke plain TCP (sent in GOAWAY, unencrypted).
  public static let tlsRequired = RPCError(
    code: .unavailable, reason: "TLS_REQUIRED",
    message: LocalizedText(
      en: "The server accepts TLS connections only; connect with TLS.",
      zhCN: "服务器只接受 TLS 连接，请使用 TLS 连接。"))

  /// The server's certificate does not chain to a trusted root (client side).
  public static func tlsCertificateUntrusted(_ target: String) -> RPCError {
    RPCError(
      code: .unavailable, reason: "TLS_CERTIFICATE_UNTRUSTED",
      message: LocalizedText(
        en: "The certificate of \(target) is not trusted: it is not signed by a trusted authority.",
        zhCN: "\(target) 的证书不受信任：它不是由受信任的机构签发的。"))
  }

  /// The server's certificate is valid but not for the name the client connected to (client
  /// side).
  public static func tlsHostnameMismatch(_ host: String) -> RPCError {
    RPCError(
      code: .unavailable, reason: "TLS_HOSTNAME_MISMATCH",
      message: LocalizedText(
        en: "The server's certificate is not valid for \(host).",
        zhCN: "服务器的证书不适用于 \(host)。"))
  }

  /// The TLS handshake failed for another reason, such as a server that serves plain TCP
  /// (client side).
  public static func tlsHandshakeFailed(_ target: String) -> RPCError {
    RPCError(
      code: .unavailable, reason: "TLS_HANDSHAKE_FAILED",
      message: LocalizedText(
        en: "The TLS handshake with \(target) failed; the server may not be serving TLS.",
        zhCN: "与 \(target) 的 TLS 握手失败；服务器可能未启用 TLS。"))
  }
}
