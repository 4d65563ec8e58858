public import NIOCore

/// Contiguous bytes a serializer writes into and a deserializer reads from: `[UInt8]` and NIO's
/// `ByteBuffer` (its readable bytes), so that a message is encoded once, straight into the
/// storage the core sends.
public protocol RPCContiguousBytes {
  /// `count` copies of `byte`.
  init(repeating byte: UInt8, count: Int)

  /// The bytes of `sequence`.
  init<Bytes: Sequence>(_ sequence: Bytes) where Bytes.Element == UInt8

  /// The number of bytes.
  var count: Int { get }

  /// Calls `body` with the bytes, valid only during the call.
  func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R

  /// Calls `body` with the bytes to write into, valid only during the call.
  mutating func withUnsafeMutableBytes<R>(
    _ body: (UnsafeMutableRawBufferPointer) throws -> R
  ) rethrows -> R
}

extension [UInt8]: RPCContiguousBytes {}

extension ByteBuffer: RPCContiguousBytes {
  /// The bytes of `sequence`.
  public init<Bytes: Sequence>(_ sequence: Bytes) where Bytes.Element == UInt8 {
    self.init(bytes: sequence)
  }

  /// The readable bytes.
  public var count: Int { readableBytes }

  /// Calls `body` with the readable bytes.
  public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try withUnsafeReadableBytes(body)
  }

  /// Calls `body` with the readable bytes to write into.
  public mutating func withUnsafeMutableBytes<R>(
    _ body: (UnsafeMutableRawBufferPointer) throws -> R
  ) rethrows -> R {
    try withUnsafeMutableReadableBytes(body)
  }
}
