/// Runs one operation at a time, in the order they arrive: the writes that replace or add a
/// player's recurring days, so that the database and the board see them in the same order.
actor SerialGate {
  private var busy = false
  private var waiting: [CheckedContinuation<Void, Never>] = []

  /// Runs `body` once every operation that arrived before it has finished.
  func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
    if busy {
      await withCheckedContinuation { waiting.append($0) }
    } else {
      busy = true
    }
    defer {
      if waiting.isEmpty {
        busy = false
      } else {
        waiting.removeFirst().resume()
      }
    }
    return try await body()
  }
}
