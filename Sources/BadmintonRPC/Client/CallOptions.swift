/// Per-call choices of a client call.
public struct CallOptions: Sendable {
  /// The whole call's time limit, retries included; sent as `timeout_ms`. nil = no deadline.
  public var timeout: Duration?
  /// The language of status messages; sent as `locale` metadata. nil = the client's default.
  public var locale: RPCLocale?
  /// A session token; sent as `authorization: Bearer <token>`.
  public var bearerToken: String?
  /// Sent as `idempotency-key` metadata.
  public var idempotencyKey: String?
  /// Any further metadata; keys must be lower case.
  public var metadata: [Metadata]

  /// Options with the given values; every one is optional.
  public init(
    timeout: Duration? = nil, locale: RPCLocale? = nil, bearerToken: String? = nil,
    idempotencyKey: String? = nil, metadata: [Metadata] = []
  ) {
    self.timeout = timeout
    self.locale = locale
    self.bearerToken = bearerToken
    self.idempotencyKey = idempotencyKey
    self.metadata = metadata
  }

  /// The metadata entries these options send.
  func envelopeMetadata(defaultLocale: RPCLocale?) -> [Metadata] {
    var result = metadata
    if let locale = locale ?? defaultLocale {
      result.append(Metadata(key: "locale", value: locale.rawValue))
    }
    if let bearerToken {
      result.append(Metadata(key: "authorization", value: "Bearer \(bearerToken)"))
    }
    if let idempotencyKey {
      result.append(Metadata(key: "idempotency-key", value: idempotencyKey))
    }
    return result
  }
}
