/// The messages of a server-streaming call, in order; the sequence ends when the server ends the
/// call with OK and throws its `RPCError` otherwise. Dropping it cancels the call.
public struct ResponseStream<Message: ProtobufMessage>: AsyncSequence, Sendable {
  public typealias Element = Message
  private let payloads: AsyncThrowingStream<[UInt8], any Error>

  init(payloads: AsyncThrowingStream<[UInt8], any Error>) { self.payloads = payloads }

  public struct AsyncIterator: AsyncIteratorProtocol {
    var base: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator

    public mutating func next() async throws -> Message? {
      guard let payload = try await base.next() else { return nil }
      do {
        return try Message(serializedBytes: payload)
      } catch {
        throw RPCError.responseMalformed(Message.fullName)
      }
    }
  }

  public func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(base: payloads.makeAsyncIterator())
  }
}
