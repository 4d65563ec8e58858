import CBadmintonRPCProto
import PropertyBased
import Testing

@testable import BadmintonRPC

@Suite("Strings holding U+0000 are refused where messages are decoded")
struct StringNULTests {
  @Test("for any message and any string field at any depth, a NUL is found and named by its path")
  func anyStringField_withNUL_isNamed() async throws {
    await propertyCheck(count: 600, input: WireSampleGen.samples) { sample in
      let found = sample.bytes.withUnsafeBytes { StringFieldScan.scan($0, sample.descriptor) }
      #expect(found == sample.nulPath.map { .nul(field: $0) }, "\(sample.name)")
      // The sample is a valid encoding: protobuf-c unpacks it, NUL or not.
      let unpacked = sample.bytes.withUnsafeBufferPointer {
        cbadminton_unpack(sample.descriptor, $0.count, $0.baseAddress)
      }
      #expect(unpacked != nil, "\(sample.name)")
      if let unpacked { cbadminton_free_unpacked(unpacked) }
    }
  }

  @Test("a NUL in a repeated nested string is refused by the decoder with the element's path")
  func status_violationNUL_isRefused() throws {
    let clean = Status(
      code: .invalidArgument, message: "m", reason: "R",
      violations: [
        FieldViolation(field: "a", reason: "r", description: "d"),
        FieldViolation(field: "b", reason: "r", description: "d"),
      ])
    var bytes = clean.serializedBytes()
    #expect(try Status(serializedBytes: bytes) == clean)
    // The second violation's field "b" becomes "\0".
    let position = try #require(bytes.lastIndex(of: UInt8(ascii: "b")))
    bytes[position] = 0
    let error = #expect(throws: MessageDecodingError.self) {
      _ = try Status(serializedBytes: bytes)
    }
    #expect(error?.fieldWithNUL == "violations[1].field")
  }

  @Test("a NUL in a top-level string is refused; in bytes or unknown fields it is not")
  func topLevel_andBytes() throws {
    let request = ReferenceEncoder.string(1, "echo:a\u{0}b")
    let error = #expect(throws: MessageDecodingError.self) {
      _ = try HealthCheckRequest(serializedBytes: request)
    }
    #expect(error?.fieldWithNUL == "service")
    #expect(error?.messageType == "badminton.rpc.v1.HealthCheckRequest")

    // An envelope's payload is bytes: NULs there are data.
    let envelope = Envelope(callID: 1, kind: .request, method: "/x.Y/Z", payload: [0, 0, 1])
    #expect(try Envelope(serializedBytes: envelope.serializedBytes()) == envelope)
    // A field this build does not know is skipped, whatever it holds.
    let unknown = ReferenceEncoder.string(1, "ok") + ReferenceEncoder.bytes(99, [0, 0])
    #expect(try HealthCheckRequest(serializedBytes: unknown).service == "ok")
  }

  @Test("the server answers a request holding U+0000 with INVALID_ARGUMENT naming the field")
  func server_refusesNUL() async throws {
    try await withTestServer { _, port, _ in
      try await withTestClient(port: port) { client in
        let failed = await #expect(throws: RPCError.self) {
          _ = try await client.unary(
            path: TestService.unary.path, payload: ReferenceEncoder.string(1, "echo:a\u{0}b"),
            idempotent: false)
        }
        #expect(failed?.code == .invalidArgument)
        #expect(failed?.reason == "STRING_CONTAINS_NUL")
        #expect(failed?.violations.map(\.field) == ["service"])
        #expect(failed?.violations.map(\.reason) == ["STRING_CONTAINS_NUL"])
      }
    }
  }
}

/// A random, valid protobuf encoding of one message type, and where (if anywhere) a string in
/// it holds U+0000.
struct WireSample: CustomStringConvertible, Sendable {
  var message: CMessageDescriptor
  var bytes: [UInt8]
  /// The path of the string field holding the one NUL, computed as the sample was built.
  var nulPath: String?

  var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { message.pointer }
  var name: String { message.fullName }
  var description: String { "\(name) \(bytes) nul at \(nulPath ?? "none")" }
}

/// Builds random encodings from protoc-c's descriptors: every field kind, repeated fields
/// interleaved with others, packed scalars, unknown fields and bytes holding NULs (which are not
/// strings), and at most one string with a NUL somewhere in it.
enum WireSampleGen {
  /// One field occurrence before encoding.
  indirect enum Node {
    case encoded(number: UInt32, wireType: UInt8, body: [UInt8])
    case string(field: ProtobufCFieldDescriptor, text: [UInt8])
    case message(field: ProtobufCFieldDescriptor, children: [Node])
  }

  static let samples = Generator { rng in
    let chosen = RPCContract.messageTypes.randomElement(using: &rng)!.cDescriptor
    let descriptor = chosen.pointer
    let nodes = message(descriptor, depth: 0, &rng)
    let sites = stringSites(nodes)
    let target =
      sites > 0 && Bool.random(using: &rng) ? Int.random(in: 0..<sites, using: &rng) : nil
    var state = EncodeState(target: target)
    let bytes = encode(nodes, path: "", &state, &rng)
    return WireSample(message: chosen, bytes: bytes, nulPath: state.nulPath)
  }

  static func message(
    _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, depth: Int,
    _ rng: inout any SeededRandomNumberGenerator
  ) -> [Node] {
    var nodes: [Node] = []
    for index in 0..<Int(descriptor.pointee.n_fields) {
      let field = descriptor.pointee.fields[index]
      guard Int.random(in: 0..<3, using: &rng) != 0 else { continue }
      let repeated = field.label == PROTOBUF_C_LABEL_REPEATED
      let count = repeated ? Int.random(in: 1...3, using: &rng) : 1
      if repeated, field.type != PROTOBUF_C_TYPE_STRING, field.type != PROTOBUF_C_TYPE_MESSAGE,
        field.type != PROTOBUF_C_TYPE_BYTES
      {
        // Packed, as protoc-c writes repeated scalars.
        let body = (0..<count).flatMap { _ in scalar(field.type, &rng).body }
        nodes.append(.encoded(number: field.id, wireType: 2, body: body))
        continue
      }
      for _ in 0..<count {
        switch field.type {
        case PROTOBUF_C_TYPE_STRING:
          nodes.append(.string(field: field, text: Array(MessageGen.string(&rng).utf8)))
        case PROTOBUF_C_TYPE_BYTES:
          // NULs in bytes are data.
          nodes.append(.encoded(number: field.id, wireType: 2, body: [0] + MessageGen.bytes(&rng)))
        case PROTOBUF_C_TYPE_MESSAGE:
          guard depth < 4 else { continue }
          let nested = field.descriptor.assumingMemoryBound(to: ProtobufCMessageDescriptor.self)
          nodes.append(.message(field: field, children: message(nested, depth: depth + 1, &rng)))
        default:
          let value = scalar(field.type, &rng)
          nodes.append(.encoded(number: field.id, wireType: value.wireType, body: value.body))
        }
      }
    }
    if Int.random(in: 0..<4, using: &rng) == 0 {
      // A field number no message here uses, holding a NUL.
      nodes.append(.encoded(number: 9_999, wireType: 2, body: [0x61, 0, 0x62]))
    }
    // Fields may come in any order; repeated elements keep their order among themselves.
    return interleave(nodes, &rng)
  }

  /// `nodes` shuffled, but with nodes of one field number in their first order.
  static func interleave(_ nodes: [Node], _ rng: inout any SeededRandomNumberGenerator) -> [Node] {
    var slots = nodes.map(\.number)
    slots.shuffle(using: &rng)
    var queues: [UInt32: [Node]] = Dictionary(grouping: nodes, by: \.number)
    return slots.map { number in queues[number]!.removeFirst() }
  }

  static func scalar(_ type: ProtobufCType, _ rng: inout any SeededRandomNumberGenerator) -> (
    wireType: UInt8, body: [UInt8]
  ) {
    switch type {
    case PROTOBUF_C_TYPE_FIXED64, PROTOBUF_C_TYPE_SFIXED64, PROTOBUF_C_TYPE_DOUBLE:
      return (1, (0..<8).map { _ in UInt8.random(in: 0...255, using: &rng) })
    case PROTOBUF_C_TYPE_FIXED32, PROTOBUF_C_TYPE_SFIXED32, PROTOBUF_C_TYPE_FLOAT:
      return (5, (0..<4).map { _ in UInt8.random(in: 0...255, using: &rng) })
    case PROTOBUF_C_TYPE_BOOL:
      return (0, [UInt8.random(in: 0...1, using: &rng)])
    default:
      return (0, ReferenceEncoder.varint(MessageGen.uint64(&rng)))
    }
  }

  static func stringSites(_ nodes: [Node]) -> Int {
    nodes.reduce(0) { total, node in
      switch node {
      case .encoded: total
      case .string: total + 1
      case .message(_, let children): total + stringSites(children)
      }
    }
  }

  struct EncodeState {
    var target: Int?
    var seen = 0
    var nulPath: String?
  }

  static func encode(
    _ nodes: [Node], path: String, _ state: inout EncodeState,
    _ rng: inout any SeededRandomNumberGenerator
  ) -> [UInt8] {
    var out: [UInt8] = []
    var elements: [UInt32: Int] = [:]
    for node in nodes {
      switch node {
      case .encoded(let number, let wireType, let body):
        out += ReferenceEncoder.tag(Int(number), Int(wireType))
        if wireType == 2 { out += ReferenceEncoder.varint(UInt64(body.count)) }
        out += body
      case .string(let field, var text):
        let name = fieldPath(path, field, &elements)
        if state.seen == state.target {
          text.insert(0, at: Int.random(in: 0...text.count, using: &rng))
          state.nulPath = name
        }
        state.seen += 1
        out += ReferenceEncoder.bytes(Int(field.id), text, always: true)
      case .message(let field, let children):
        let name = fieldPath(path, field, &elements)
        out += ReferenceEncoder.bytes(
          Int(field.id), encode(children, path: name, &state, &rng), always: true)
      }
    }
    return out
  }

  /// The path of the next occurrence of `field` under `path`, counting repeated elements.
  static func fieldPath(
    _ path: String, _ field: ProtobufCFieldDescriptor, _ elements: inout [UInt32: Int]
  ) -> String {
    var name = (path.isEmpty ? "" : path + ".") + String(cString: field.name)
    if field.label == PROTOBUF_C_LABEL_REPEATED {
      name += "[\(elements[field.id, default: 0])]"
      elements[field.id, default: 0] += 1
    }
    return name
  }
}

extension WireSampleGen.Node {
  var number: UInt32 {
    switch self {
    case .encoded(let number, _, _): number
    case .string(let field, _), .message(let field, _): field.id
    }
  }
}
