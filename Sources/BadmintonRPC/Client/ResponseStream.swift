/// The messages of a server-streaming call, in order; the sequence ends when the server ends the
/// call with OK and throws its `RPCError` otherwise. Dropping it cancels the call.
public struct ResponseStream<Message: Sendable>: AsyncSequence, Sendable {
  public typealias Element = Message
  private let payloads: AsyncThrowingStream<[UInt8], any Error>
  private let decode: @Sendable ([UInt8]) throws -> Message

  /// The stream of `payloads`, each decoded by `deserializer`; a payload it cannot decode ends
  /// the iteration with RESPONSE_MALFORMED naming `type`.
  init(
    payloads: AsyncThrowingStream<[UInt8], any Error>,
    deserializer: some MessageDeserializer<Message>, type: String
  ) {
    self.payloads = payloads
    self.decode = { payload in
      do {
        return try deserializer.deserialize(payload)
      } catch {
        throw RPCError.responseMalformed(type)
      }
    }
  }

  public struct AsyncIterator: AsyncIteratorProtocol {
    var base: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator
    let decode: @Sendable ([UInt8]) throws -> Message

    public mutating func next() async throws -> Message? {
      guard let payload = try await base.next() else { return nil }
      return try decode(payload)
    }
  }

  public func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(base: payloads.makeAsyncIterator(), decode: decode)
  }
}
