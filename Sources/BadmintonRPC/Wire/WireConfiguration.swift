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

  /// The most bytes a REQUEST envelope the server accepts can hold besides its payload: 9,061.
  ///
  /// Every field's tag is one byte (field numbers 1 to 7). The fixed fields take at most:
  /// `call_id` 1 + 10 (a 64-bit varint), `kind` 1 + 10 (an enum is an int32 varint, and a
  /// negative one takes 10 bytes), `timeout_ms` 1 + 5 (a 32-bit varint), `method` 1 + 2 +
  /// `maximumMethodBytes` (a length under 16,384 takes two varint bytes). Each metadata entry
  /// takes at most 9 bytes besides its key and value: its tag, its length (2 bytes: an entry
  /// holds at most `maximumMetadataBytes` + 6 bytes), and the key's and the value's tags and
  /// lengths (1 + 2 each), so all of them at most `maximumMetadataEntries` × 9 +
  /// `maximumMetadataBytes`. The payload's tag and length take 1 + 5 (a frame body's length is
  /// 32 bits). A REQUEST carries no status, and the server refuses longer method paths and
  /// larger metadata, so a request whose payload a method accepts always fits
  /// `largestRequestBody(payload:)`.
  public static let requestEnvelopeOverhead =
    (1 + 10) + (1 + 10) + (1 + 5) + (1 + 2 + maximumMethodBytes)
    + maximumMetadataEntries * 9 + maximumMetadataBytes + (1 + 5)

  /// The largest body of a REQUEST frame whose payload has at most `payload` bytes and whose
  /// method path and metadata are within the limits above. CANCEL and PING envelopes are
  /// smaller than the overhead alone.
  public static func largestRequestBody(payload: Int) -> Int {
    payload + requestEnvelopeOverhead
  }

  /// True when an envelope carrying `payload`, `method` and `metadata` fits a body of `limit`
  /// bytes whatever else it holds.
  public static func fits(payload: Int, method: String = "", metadata: [Metadata] = [], limit: Int)
    -> Bool
  {
    let metadataSize = metadata.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 8 }
    return payload + method.utf8.count + metadataSize + envelopeOverhead <= limit
  }
}
