extension StatusCode {
  /// Every code the protocol defines, in number order.
  public static let allDefined: [StatusCode] = (0...16).map { StatusCode(rawValue: $0) }

  /// The code's name as in `Proto/badminton/rpc/v1/status.proto`, e.g. `INVALID_ARGUMENT`.
  public var name: String { description }
}
