extension Status {
  /// The OK status.
  public static let ok = Status(code: .ok)
}
