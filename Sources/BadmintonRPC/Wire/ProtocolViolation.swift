/// A peer broke the wire protocol; the connection gets GOAWAY with this status and is closed.
public struct ProtocolViolation: Error, Hashable, Sendable, RPCErrorConvertible,
  CustomStringConvertible
{
  /// The error carried in the GOAWAY.
  public var rpcError: RPCError

  /// A violation with the given code, reason and message.
  init(
    _ code: StatusCode, _ reason: String, en: String, zhCN: String, retryAfter: Duration? = nil
  ) {
    self.rpcError = RPCError(
      code: code, reason: reason, message: LocalizedText(en: en, zhCN: zhCN),
      retryAfter: retryAfter)
  }

  public var description: String { rpcError.description }

  /// The flags byte has reserved bits set.
  public static func reservedFlags(_ flags: UInt8) -> ProtocolViolation {
    ProtocolViolation(
      .invalidArgument, "RESERVED_FLAGS_SET",
      en: "Frame flags 0x\(String(flags, radix: 16)) set reserved bits; only bit 0 may be set.",
      zhCN: "帧标志 0x\(String(flags, radix: 16)) 使用了保留位，只能设置第 0 位。")
  }

  /// The frame announces a body over the limit.
  public static func frameTooLarge(_ length: UInt32, limit: Int) -> ProtocolViolation {
    ProtocolViolation(
      .resourceExhausted, "FRAME_TOO_LARGE",
      en: "A frame body of \(length) bytes exceeds the limit of \(limit) bytes.",
      zhCN: "帧内容 \(length) 字节，超过了 \(limit) 字节的上限。")
  }

  /// The zstd body is not one valid zstd frame.
  public static func compressionCorrupt(_ detail: String) -> ProtocolViolation {
    ProtocolViolation(
      .invalidArgument, "COMPRESSED_BODY_CORRUPT",
      en: "A compressed frame body is not one valid zstd frame (\(detail)).",
      zhCN: "压缩的帧内容不是有效的 zstd 帧（\(detail)）。")
  }

  /// The zstd body decompresses past the limit.
  public static func decompressedTooLarge(limit: Int) -> ProtocolViolation {
    ProtocolViolation(
      .resourceExhausted, "DECOMPRESSED_BODY_TOO_LARGE",
      en: "A compressed frame body decompresses past the limit of \(limit) bytes.",
      zhCN: "压缩的帧内容解压后超过了 \(limit) 字节的上限。")
  }

  /// The zstd frame needs a window larger than a body may be.
  public static func compressionWindowTooLarge(limit: Int) -> ProtocolViolation {
    ProtocolViolation(
      .resourceExhausted, "COMPRESSION_WINDOW_TOO_LARGE",
      en:
        "A compressed frame body needs a zstd window larger than the body limit of \(limit) bytes.",
      zhCN: "压缩的帧内容所需的 zstd 窗口超过了 \(limit) 字节的内容上限。")
  }

  /// A frame over the size a connection without an authenticated call may send.
  public static func frameNeedsSession(_ length: UInt32, limit: Int) -> ProtocolViolation {
    ProtocolViolation(
      .unauthenticated, "LARGE_FRAME_NEEDS_SESSION",
      en:
        "A frame body of \(length) bytes exceeds \(limit) bytes; larger frames are accepted only after a call on this connection has passed authentication (Health/CheckSession).",
      zhCN:
        "帧内容 \(length) 字节，超过了 \(limit) 字节；只有在此连接上已有请求通过身份验证（Health/CheckSession）后才接受更大的帧。"
    )
  }

  /// A compressed body does not state its content size in its zstd frame header.
  public static let compressedSizeUnstated = ProtocolViolation(
    .invalidArgument, "COMPRESSED_SIZE_UNSTATED",
    en: "A compressed frame body must state its content size in its zstd frame header.",
    zhCN: "压缩的帧内容必须在 zstd 帧头中声明其解压后的大小。")

  /// The server-wide memory budget for requests cannot hold the frame now.
  public static func serverBusy(bytes: Int) -> ProtocolViolation {
    ProtocolViolation(
      .resourceExhausted, "SERVER_BUSY",
      en: "The server cannot take a frame of \(bytes) bytes now; try again later.",
      zhCN: "服务器现在无法接收 \(bytes) 字节的帧，请稍后再试。",
      retryAfter: RPCError.busyRetryAfter)
  }

  /// A frame did not arrive whole within the frame timeout after its first byte.
  public static func frameTimeout(seconds: Int64) -> ProtocolViolation {
    ProtocolViolation(
      .deadlineExceeded, "FRAME_TIMEOUT",
      en: "A frame did not arrive whole within \(seconds) seconds of its first byte.",
      zhCN: "帧在首字节到达后 \(seconds) 秒内未完整到达。")
  }

  /// The body is not an envelope.
  public static let envelopeMalformed = ProtocolViolation(
    .invalidArgument, "ENVELOPE_MALFORMED",
    en: "A frame body is not a valid badminton.rpc.v1.Envelope.",
    zhCN: "帧内容不是有效的 badminton.rpc.v1.Envelope。")

  /// A REQUEST used a call id that is still open.
  public static func callIDReused(_ callID: UInt64) -> ProtocolViolation {
    ProtocolViolation(
      .invalidArgument, "CALL_ID_REUSED",
      en: "REQUEST reuses call id \(callID), which is still open.",
      zhCN: "REQUEST 使用了仍在进行中的调用编号 \(callID)。")
  }

  /// A REQUEST or CANCEL used call id 0.
  public static func callIDZero(_ kind: EnvelopeKind) -> ProtocolViolation {
    ProtocolViolation(
      .invalidArgument, "CALL_ID_ZERO",
      en: "\(kind) must carry a call id greater than 0.",
      zhCN: "\(kind) 的调用编号必须大于 0。")
  }

  /// The envelope's kind is not one this side accepts.
  public static func unexpectedKind(_ kind: EnvelopeKind) -> ProtocolViolation {
    ProtocolViolation(
      .invalidArgument, "UNEXPECTED_KIND",
      en: "An envelope of kind \(kind) is not allowed from this side.",
      zhCN: "不允许此方发送类型为 \(kind) 的信封。")
  }

  /// A PING payload was over 64 bytes.
  public static func pingPayloadTooLarge(_ size: Int) -> ProtocolViolation {
    ProtocolViolation(
      .invalidArgument, "PING_PAYLOAD_TOO_LARGE",
      en: "A PING payload of \(size) bytes exceeds 64 bytes.",
      zhCN: "PING 内容 \(size) 字节，超过了 64 字节。")
  }

  /// A REQUEST's method path is longer than the protocol allows.
  public static func methodTooLong(_ size: Int) -> ProtocolViolation {
    ProtocolViolation(
      .invalidArgument, "METHOD_TOO_LONG",
      en: "A method path of \(size) bytes exceeds \(FrameFormat.maximumMethodBytes) bytes.",
      zhCN: "方法路径 \(size) 字节，超过了 \(FrameFormat.maximumMethodBytes) 字节。")
  }

  /// A REQUEST carries more metadata than the protocol allows.
  public static func metadataTooLarge(entries: Int, bytes: Int) -> ProtocolViolation {
    ProtocolViolation(
      .resourceExhausted, "METADATA_TOO_LARGE",
      en:
        "REQUEST metadata of \(entries) entries and \(bytes) bytes exceeds \(FrameFormat.maximumMetadataEntries) entries or \(FrameFormat.maximumMetadataBytes) bytes.",
      zhCN:
        "REQUEST 元数据共 \(entries) 项、\(bytes) 字节，超过了 \(FrameFormat.maximumMetadataEntries) 项或 \(FrameFormat.maximumMetadataBytes) 字节的上限。"
    )
  }
}
