internal import CZstd
public import NIOCore

/// zstd compression of frame bodies: one reusable compression context per connection, and a
/// decompression context per frame that lives only while the frame is decompressed.
public enum Zstd {
  /// A zstd failure: the input is not a zstd frame, is cut short, or decompresses past the limit.
  public struct Error: Swift.Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Hashable, Sendable {
      /// The input is not one complete, valid zstd frame.
      case corrupt
      /// The output would exceed the limit.
      case tooLarge
      /// The frame asks for a larger window than the limit allows.
      case windowTooLarge
      /// The frame does not state its content size in its header.
      case contentSizeUnknown
      /// The compressor failed.
      case compressionFailed
    }

    /// What went wrong.
    public var kind: Kind
    /// zstd's own words, when it gave any.
    public var detail: String

    public var description: String { "zstd \(kind): \(detail)" }
  }

  /// Compresses whole bodies into single zstd frames, reusing one context.
  ///
  /// Not thread-safe: each connection owns one, used on its event loop only.
  public final class Compressor {
    private let context: OpaquePointer

    /// A compressor at `level` (zstd's 1 = fastest ... 19).
    public init(level: Int32) {
      guard let context = ZSTD_createCCtx() else { fatalError("zstd: out of memory") }
      self.context = context
      ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level)
      ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 0)
    }

    deinit { ZSTD_freeCCtx(context) }

    /// Compresses `input` into one zstd frame appended to `output`; returns its size.
    @discardableResult
    public func compress(_ input: UnsafeRawBufferPointer, appendingTo output: inout ByteBuffer)
      throws(Zstd.Error) -> Int
    {
      defer { ZSTD_CCtx_reset(context, ZSTD_reset_session_only) }
      let bound = ZSTD_compressBound(input.count)
      var result = 0
      output.writeWithUnsafeMutableBytes(minimumWritableBytes: bound) { out in
        result = ZSTD_compress2(context, out.baseAddress, out.count, input.baseAddress, input.count)
        return ZSTD_isError(result) != 0 ? 0 : result
      }
      if ZSTD_isError(result) != 0 {
        throw Zstd.Error(
          kind: .compressionFailed, detail: String(cString: ZSTD_getErrorName(result)))
      }
      return result
    }
  }

  /// Decompresses single zstd frames whose header states their content size, with a hard cap
  /// on the output and on the window the frame asks for.
  ///
  /// Holds no zstd state between frames: each frame gets a context of its own, freed as soon as
  /// the frame is decompressed, and is decompressed in one pass into an output of exactly the
  /// size the frame states (zstd checks that the data produces that size, no more, no less), so
  /// nothing but that output and the context is ever allocated for it.
  public final class Decompressor {
    /// The largest window a frame may ask for, as a power of two.
    private let windowLogMax: Int

    /// A decompressor whose window is bounded for outputs of at most `maximumOutput` bytes.
    public init(maximumOutput: Int) {
      var windowLog = 10
      while windowLog < 31 && (1 << windowLog) < maximumOutput { windowLog += 1 }
      self.windowLogMax = windowLog
    }

    /// The memory one decompression context takes while a frame is decompressed.
    public static let contextSize: Int = {
      guard let context = ZSTD_createDCtx() else { return 1 << 18 }
      defer { ZSTD_freeDCtx(context) }
      return ZSTD_sizeof_DCtx(context)
    }()

    private static func failure(_ code: Int) -> Zstd.Error {
      Zstd.Error(kind: .corrupt, detail: String(cString: ZSTD_getErrorName(code)))
    }

    /// The size `input` decompresses to, read from its header without decompressing: `input`
    /// must be exactly one zstd frame that states its content size, of at most `limit` bytes,
    /// with a window no larger than this decompressor allows.
    public func contentSize(of input: UnsafeRawBufferPointer, limit: Int) throws(Zstd.Error)
      -> Int
    {
      guard let base = input.baseAddress, input.count > 0 else {
        throw Zstd.Error(kind: .corrupt, detail: "empty body")
      }
      let size = ZSTD_getFrameContentSize(base, input.count)
      // A single-segment frame's window is its content.
      if let windowSize = Self.windowSize(input) ?? (size < UInt64.max - 1 ? size : nil),
        windowSize > (1 << windowLogMax)
      {
        throw Zstd.Error(kind: .windowTooLarge, detail: "window of \(windowSize) bytes")
      }
      let frameSize = ZSTD_findFrameCompressedSize(base, input.count)
      if ZSTD_isError(frameSize) != 0 { throw Self.failure(frameSize) }
      guard frameSize == input.count else {
        throw Zstd.Error(kind: .corrupt, detail: "data after the frame")
      }
      if size == UInt64.max {  // ZSTD_CONTENTSIZE_UNKNOWN
        throw Zstd.Error(kind: .contentSizeUnknown, detail: "content size not stated")
      }
      if size == UInt64.max - 1 {  // ZSTD_CONTENTSIZE_ERROR
        throw Zstd.Error(kind: .corrupt, detail: "frame header")
      }
      guard size <= UInt64(limit) else {
        throw Zstd.Error(kind: .tooLarge, detail: "states \(size) bytes, past \(limit)")
      }
      return Int(size)
    }

    /// The window a zstd frame header asks for, when `input` starts with one (RFC 8878 3.1.1.1).
    private static func windowSize(_ input: UnsafeRawBufferPointer) -> UInt64? {
      guard input.count >= 6, input.loadUnaligned(as: UInt32.self).littleEndian == 0xFD2F_B528
      else {
        return nil
      }
      let descriptor = input[4]
      guard descriptor & 0x20 == 0 else { return nil }  // single segment: window = content
      let window = input[5]
      let windowLog = 10 + UInt64(window >> 3)
      let base: UInt64 = 1 << windowLog
      return base + (base / 8) * UInt64(window & 7)
    }

    /// Decompresses `input`, which must be exactly one complete zstd frame stating a content
    /// size of at most `limit` bytes, into a new buffer of exactly that size.
    public func decompress(
      _ input: UnsafeRawBufferPointer, limit: Int, allocator: ByteBufferAllocator
    ) throws(Zstd.Error) -> ByteBuffer {
      let size = try contentSize(of: input, limit: limit)
      return try decompress(input, contentSize: size, allocator: allocator)
    }

    /// Decompresses `input`, whose `contentSize` was checked with `contentSize(of:limit:)`, into
    /// a new buffer of exactly that capacity, with a context that lives only for this call.
    public func decompress(
      _ input: UnsafeRawBufferPointer, contentSize: Int, allocator: ByteBufferAllocator
    ) throws(Zstd.Error) -> ByteBuffer {
      guard let context = ZSTD_createDCtx() else { fatalError("zstd: out of memory") }
      defer { ZSTD_freeDCtx(context) }
      ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, Int32(windowLogMax))
      var output = allocator.buffer(capacity: contentSize)
      guard contentSize > 0 else {
        // Nothing to produce: zstd still checks that the frame is whole and empty.
        var empty: UInt8 = 0
        let code = ZSTD_decompressDCtx(context, &empty, 0, input.baseAddress, input.count)
        if ZSTD_isError(code) != 0 { throw Self.failure(code) }
        return output
      }
      var code = 0
      output.writeWithUnsafeMutableBytes(minimumWritableBytes: contentSize) { out in
        code = ZSTD_decompressDCtx(
          context, out.baseAddress, contentSize, input.baseAddress, input.count)
        return ZSTD_isError(code) != 0 ? 0 : code
      }
      if ZSTD_isError(code) != 0 { throw Self.failure(code) }
      guard code == contentSize else {
        throw Zstd.Error(kind: .corrupt, detail: "content size mismatch")
      }
      return output
    }
  }
}
