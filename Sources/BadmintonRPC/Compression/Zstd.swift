internal import CZstd
public import NIOCore

/// zstd compression of frame bodies, with one reusable context per direction and connection.
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

  /// Decompresses single zstd frames with a hard cap on the output, reusing one context.
  ///
  /// Never trusts the content size a frame claims: the output grows only as far as the data
  /// really decompresses, and stops at the limit. Not thread-safe: one per connection.
  public final class Decompressor {
    private let context: OpaquePointer

    /// A decompressor whose window is bounded for outputs of at most `maximumOutput` bytes.
    public init(maximumOutput: Int) {
      guard let context = ZSTD_createDCtx() else { fatalError("zstd: out of memory") }
      self.context = context
      // A frame may ask for a window up to 2^windowLogMax bytes; bound it by the output limit so
      // that a hostile header cannot make the context allocate more than a body may hold.
      var windowLog: Int32 = 10
      while windowLog < 31 && (1 << windowLog) < maximumOutput { windowLog += 1 }
      ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, windowLog)
    }

    deinit { ZSTD_freeDCtx(context) }

    private static func failure(_ code: Int) -> Zstd.Error {
      let name = String(cString: ZSTD_getErrorName(code))
      if ZSTD_getErrorCode(code) == ZSTD_error_frameParameter_windowTooLarge {
        return Zstd.Error(kind: .windowTooLarge, detail: name)
      }
      return Zstd.Error(kind: .corrupt, detail: name)
    }

    /// Decompresses `input`, which must be exactly one complete zstd frame, into a new buffer of
    /// at most `limit` bytes.
    public func decompress(
      _ input: UnsafeRawBufferPointer, limit: Int, allocator: ByteBufferAllocator
    ) throws(Zstd.Error) -> ByteBuffer {
      defer { ZSTD_DCtx_reset(context, ZSTD_reset_session_only) }
      guard let inputBase = input.baseAddress, input.count > 0 else {
        throw Zstd.Error(kind: .corrupt, detail: "empty body")
      }
      var output = allocator.buffer(capacity: min(limit, max(4096, input.count * 4)))
      var inBuffer = ZSTD_inBuffer(src: inputBase, size: input.count, pos: 0)
      while true {
        let room = min(limit - output.writerIndex, max(output.writableBytes, output.writerIndex))
        if room <= 0 {
          // The limit is reached: the frame may only be complete if nothing more comes out.
          var probe: UInt8 = 0
          let remaining = withUnsafeMutablePointer(to: &probe) { probePointer in
            var outBuffer = ZSTD_outBuffer(dst: probePointer, size: 1, pos: 0)
            let code = ZSTD_decompressStream(context, &outBuffer, &inBuffer)
            return (code, outBuffer.pos)
          }
          if ZSTD_isError(remaining.0) != 0 { throw Self.failure(remaining.0) }
          if remaining.1 > 0 || remaining.0 != 0 {
            if remaining.1 > 0 || inBuffer.pos < inBuffer.size {
              throw Zstd.Error(kind: .tooLarge, detail: "decompresses past \(limit) bytes")
            }
            throw Zstd.Error(kind: .corrupt, detail: "truncated frame")
          }
          guard inBuffer.pos == inBuffer.size else {
            throw Zstd.Error(kind: .corrupt, detail: "data after the frame")
          }
          return output
        }
        var code = 0
        var produced = 0
        output.writeWithUnsafeMutableBytes(minimumWritableBytes: room) { out in
          var outBuffer = ZSTD_outBuffer(dst: out.baseAddress, size: room, pos: 0)
          code = ZSTD_decompressStream(context, &outBuffer, &inBuffer)
          produced = outBuffer.pos
          return ZSTD_isError(code) != 0 ? 0 : outBuffer.pos
        }
        if ZSTD_isError(code) != 0 { throw Self.failure(code) }
        if code == 0 {
          guard inBuffer.pos == inBuffer.size else {
            throw Zstd.Error(kind: .corrupt, detail: "data after the frame")
          }
          return output
        }
        if inBuffer.pos == inBuffer.size && produced < room {
          // All input is consumed, the output had room, and the frame is not finished.
          throw Zstd.Error(kind: .corrupt, detail: "truncated frame")
        }
      }
    }
  }
}
