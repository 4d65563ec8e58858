public import CBadmintonProto

/// What an envelope is (`badminton.rpc.v1.Kind`); numbers this build does not know are kept.
public struct EnvelopeKind: Hashable, Sendable, CustomStringConvertible {
  /// The number on the wire.
  public var rawValue: Int32

  /// Wraps a number from the wire.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  public static let unspecified = EnvelopeKind(rawValue: 0)
  public static let request = EnvelopeKind(rawValue: 1)
  public static let response = EnvelopeKind(rawValue: 2)
  public static let streamMessage = EnvelopeKind(rawValue: 3)
  public static let streamEnd = EnvelopeKind(rawValue: 4)
  public static let cancel = EnvelopeKind(rawValue: 5)
  public static let ping = EnvelopeKind(rawValue: 6)
  public static let pong = EnvelopeKind(rawValue: 7)
  public static let goAway = EnvelopeKind(rawValue: 8)

  private static let names = [
    "KIND_UNSPECIFIED", "REQUEST", "RESPONSE", "STREAM_MESSAGE", "STREAM_END", "CANCEL", "PING",
    "PONG", "GOAWAY",
  ]

  public var description: String {
    Self.names.indices.contains(Int(rawValue)) ? Self.names[Int(rawValue)] : "KIND_\(rawValue)"
  }
}

/// One metadata entry (`badminton.rpc.v1.Metadata`).
public struct Metadata: ProtobufMessage, Hashable {
  public typealias CMessage = Badminton__Rpc__V1__Metadata
  public static let cDescriptor = CDescriptors.message("badminton.rpc.v1.Metadata")

  /// Lower-case key.
  public var key: String
  /// Value.
  public var value: String

  public init() { self.init(key: "", value: "") }

  /// An entry `key: value`.
  public init(key: String, value: String) {
    self.key = key
    self.value = value
  }

  public init(cMessage c: borrowing CMessage) {
    self.key = CField.string(c.key)
    self.value = CField.string(c.value)
  }

  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__rpc__v1__metadata__init(&c)
    c.key = arena.string(key)
    c.value = arena.string(value)
    return c
  }
}

/// The body of every frame (`badminton.rpc.v1.Envelope`).
public struct Envelope: ProtobufMessage {
  public typealias CMessage = Badminton__Rpc__V1__Envelope
  public static let cDescriptor = CDescriptors.message("badminton.rpc.v1.Envelope")

  /// The call this envelope belongs to; 0 for connection-level envelopes.
  public var callID: UInt64
  /// What the envelope is.
  public var kind: EnvelopeKind
  /// REQUEST only: the method path.
  public var method: String
  /// REQUEST only: milliseconds until the call's deadline; 0 = none.
  public var timeoutMilliseconds: UInt32
  /// REQUEST only: metadata entries.
  public var metadata: [Metadata]
  /// The field number of `metadata` in the encoding.
  static let metadataFieldNumber: UInt64 = 5
  /// The request or response message, or a PING / PONG payload.
  public var payload: [UInt8]
  /// RESPONSE, STREAM_END and GOAWAY: the status; nil when absent.
  public var status: Status?

  public init() {
    self.init(callID: 0, kind: .unspecified)
  }

  /// An envelope with the given fields.
  public init(
    callID: UInt64,
    kind: EnvelopeKind,
    method: String = "",
    timeoutMilliseconds: UInt32 = 0,
    metadata: [Metadata] = [],
    payload: [UInt8] = [],
    status: Status? = nil
  ) {
    self.callID = callID
    self.kind = kind
    self.method = method
    self.timeoutMilliseconds = timeoutMilliseconds
    self.metadata = metadata
    self.payload = payload
    self.status = status
  }

  /// The value of metadata `key`, the first when there are several.
  public func metadataValue(_ key: String) -> String? {
    metadata.first { $0.key == key }?.value
  }

  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.callID = c.call_id
    self.kind = EnvelopeKind(rawValue: CField.enumValue(c.kind))
    self.method = CField.string(c.method)
    self.timeoutMilliseconds = c.timeout_ms
    self.metadata = try CField.messages(c.n_metadata, c.metadata, as: Metadata.self)
    self.payload = CField.bytes(c.payload)
    self.status = try CField.message(c.status, as: Status.self)
  }

  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__rpc__v1__envelope__init(&c)
    c.call_id = callID
    c.kind = CField.cEnum(kind.rawValue, as: Badminton__Rpc__V1__Kind.self)
    c.method = arena.string(method)
    c.timeout_ms = timeoutMilliseconds
    (c.n_metadata, c.metadata) = arena.messages(metadata)
    c.payload = arena.bytes(payload)
    c.status = status.map { arena.pointer(to: $0.cMessage(in: arena)) }
    return c
  }
}
