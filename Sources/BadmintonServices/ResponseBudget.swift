public import BadmintonRPC

/// How many bytes the items of one paged answer may take together, so that the answer always
/// fits the server's largest frame body: a page ends early, with its cursor to the rest, when
/// the next item would pass the budget, instead of failing with `RESPONSE_TOO_LARGE`.
public struct ResponseBudget: Hashable, Sendable {
  /// The smallest frame body the services run with: one item of the largest kind (a thread with
  /// a 40,000-byte message and its player) fits a page with room to spare.
  public static let minimumBodySize = 64 * 1024
  /// Room kept for an answer's own fields besides its items: cursors, a page token, counts.
  static let answerFieldsReserve = 1024

  /// The bytes all of a page's items may take, each with its field tag and length.
  public let itemBytes: Int

  /// The budget of answers that must fit frame bodies of `maximumBodySize` bytes
  /// (`WireConfiguration.maximumBodySize` of the server, at least `minimumBodySize`).
  public init(maximumBodySize: Int) {
    precondition(maximumBodySize >= Self.minimumBodySize)
    itemBytes = maximumBodySize - FrameFormat.envelopeOverhead - Self.answerFieldsReserve
  }

  /// How many of `items`, from the first, fit the budget together. At least one when there is
  /// one, so that a page always moves on; the message rules keep any one item far below the
  /// smallest budget.
  public func fitting<M: ProtobufMessage>(_ items: some Sequence<M>) -> Int {
    var used = 0
    var count = 0
    for item in items {
      used += Self.encodedSize(item)
      if used > itemBytes && count > 0 { break }
      count += 1
    }
    return count
  }

  /// The bytes `item` takes as an element of a repeated field: the tag, the length and the item.
  public static func encodedSize(_ item: some ProtobufMessage) -> Int {
    let size = item.serializedSize
    var lengthBytes = 1
    var rest = size >> 7
    while rest > 0 {
      lengthBytes += 1
      rest >>= 7
    }
    return 1 + lengthBytes + size
  }
}
