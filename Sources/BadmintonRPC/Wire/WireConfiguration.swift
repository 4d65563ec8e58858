/// The limits and choices of the frame layer, shared by server and client.
public struct WireConfiguration: Sendable, Hashable {
  /// The largest frame body accepted, compressed or not, and the largest a zstd body may
  /// decompress to. Default 4 MiB.
  public var maximumBodySize: Int
  /// Bodies at least this large are sent compressed when that makes them smaller. Default 1 KiB.
  public var compressionThreshold: Int
  /// zstd level for outgoing bodies. Default 1 (fastest).
  public var compressionLevel: Int32

  /// Frames up to this size, header included, are not charged to a server's request memory
  /// budget: every connection may hold one such frame of its own (about what one socket read
  /// brings anyway, and a buffer that stays at 64 KiB), so that small frames such as CANCEL and
  /// PING always get through. Larger frames need a session. 64 KiB.
  public static let unchargedFrameBytes = 64 * 1024

  /// The largest body of an uncharged frame: `unchargedFrameBytes` less the 5-byte header.
  public static let unchargedBodyBytes = unchargedFrameBytes - FrameFormat.headerSize

  /// The defaults: 4 MiB bodies, compression from 1 KiB at zstd level 1.
  public init(
    maximumBodySize: Int = 4 * 1024 * 1024,
    compressionThreshold: Int = 1024,
    compressionLevel: Int32 = 1
  ) {
    self.maximumBodySize = maximumBodySize
    self.compressionThreshold = compressionThreshold
    self.compressionLevel = compressionLevel
  }
}

/// Whether a call on a connection has passed authentication: until one has, the server accepts
/// no frame over `WireConfiguration.unchargedFrameBytes` on it. A call that fails with
/// SESSION_INVALID (the session logged out or expired) takes it back. Used on the connection's
/// event loop only.
public final class ConnectionTrust {
  /// True once a call on the connection has passed authentication, until one fails with
  /// SESSION_INVALID.
  public var sessionAuthenticated = false

  /// A connection on which no call has passed authentication yet.
  public init() {}
}

/// Constants of the frame format.
public enum FrameFormat {
  /// Flags byte plus 32-bit length.
  public static let headerSize = 5
  /// Flag bit 0: the body is one zstd frame.
  public static let compressedFlag: UInt8 = 0x01
  /// Bits that must be 0.
  public static let reservedFlags: UInt8 = 0xFE
  /// The largest PING payload.
  public static let maximumPingPayload = 64
  /// The longest method path a REQUEST may carry, in UTF-8 bytes.
  public static let maximumMethodBytes = 256
  /// The most metadata entries a REQUEST may carry.
  public static let maximumMetadataEntries = 64
  /// The most metadata a REQUEST may carry: keys and values together, in UTF-8 bytes.
  public static let maximumMetadataBytes = 8192

  /// Room an envelope needs besides its payload and method path: call id, kind, timeout,
  /// tags and lengths (a status or metadata is counted on its own).
  public static let envelopeOverhead = 64

  /// True when an envelope carrying `payload`, `method` and `metadata` fits a body of `limit`
  /// bytes whatever else it holds.
  public static func fits(payload: Int, method: String = "", metadata: [Metadata] = [], limit: Int)
    -> Bool
  {
    let metadataSize = metadata.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 8 }
    return payload + method.utf8.count + metadataSize + envelopeOverhead <= limit
  }
}
