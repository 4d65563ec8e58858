import BadmintonAPI
import BadmintonJSON
import BadmintonRPC
import CBadmintonRPCProto
import Glibc
import NIOCore

// The seed corpus (Fuzz/corpus): written by `scripts/fuzz --seeds`, which runs the fuzz binary
// with BADMINTON_FUZZ_WRITE_SEEDS set to the folder.

/// Writes the seed corpus to `folder`: the frames of docs/protocol.md's worked examples, a
/// compressed frame, and for every method one valid request as a payload, as a REQUEST frame,
/// as JSON and as binary for the JSON printer.
func writeSeeds(to folder: String) {
  func write(_ name: String, _ target: Target, _ selector: UInt8, _ data: [UInt8]) {
    let path = "\(folder)/\(name)"
    guard let file = fopen(path, "wb") else { fatalError("cannot write \(path)") }
    let bytes = [target.rawValue, selector] + data
    precondition(fwrite(bytes, 1, bytes.count, file) == bytes.count, "cannot write \(path)")
    fclose(file)
  }
  func frame(_ envelope: Envelope) -> [UInt8] {
    var buffer = ByteBuffer()
    FrameEncoder(configuration: WireConfiguration()).encode(envelope, into: &buffer)
    return Array(buffer.readableBytesView)
  }

  // docs/protocol.md §3.1 and §3.2, byte for byte.
  let checkRequest: [UInt8] =
    [0x00, 0x00, 0x00, 0x00, 0x24, 0x08, 0x01, 0x10, 0x01, 0x1A, 0x1E]
    + Array("/badminton.rpc.v1.Health/Check".utf8)
  let checkResponse: [UInt8] = [
    0x00, 0x00, 0x00, 0x00, 0x0A, 0x08, 0x01, 0x10, 0x02, 0x32, 0x02, 0x08, 0x01, 0x3A, 0x00,
  ]
  write("frame-health-check-request", .frames, 0, checkRequest)
  write("frame-health-check-response", .frames, 0, checkResponse)
  // §3.3: PING, PONG, CANCEL, a call to a missing method with a deadline and a locale, GOAWAY.
  let ping = Envelope(callID: 0, kind: .ping, payload: Array("keepalive".utf8))
  let pong = Envelope(callID: 0, kind: .pong, payload: Array("keepalive".utf8))
  let cancel = Envelope(callID: 1, kind: .cancel)
  let missing = Envelope(
    callID: 2, kind: .request, method: "/badminton.v1.Matching/FindMatches",
    timeoutMs: 5000, metadata: [Metadata(key: "locale", value: "zh-CN")])
  let goAway = Envelope(
    callID: 0, kind: .goaway,
    status: Status(
      code: .unavailable, message: "The server is shutting down.", reason: "SERVER_SHUTTING_DOWN"))
  write(
    "frames-ping-pong-cancel", .frames, 0,
    frame(ping) + frame(pong) + checkRequest + frame(cancel))
  write("frame-unknown-method", .frames, 0, frame(missing))
  write("frame-goaway", .frames, 0, frame(goAway))
  write("frames-no-session", .frames, 1, checkRequest + frame(missing))
  // A zstd-compressed frame (the encoder compresses bodies from 1 KiB), and its body alone.
  let large = Envelope(
    callID: 3, kind: .request, method: "/badminton.rpc.v1.Health/Check",
    metadata: [
      Metadata(key: "locale", value: "en"), Metadata(key: "authorization", value: "Bearer abc"),
    ],
    payload: Array(repeating: 0, count: 4096))
  let compressed = frame(large)
  precondition(compressed[0] == FrameFormat.compressedFlag, "the large seed is not compressed")
  write("frame-compressed", .frames, 0, compressed)
  write("envelope-compressed", .envelope, 1, Array(compressed[FrameFormat.headerSize...]))
  write("envelope-request-metadata", .envelope, 0, large.serializedBytes())

  for (index, info) in methods.enumerated() {
    let descriptor = APIContract.descriptorsByName[info.requestType]!
    let json = sampleJSON(descriptor.pointer, depth: 0)
    let payload: [UInt8]
    do {
      payload = try ProtoJSON.decode(json, as: descriptor)
    } catch {
      fatalError("the sample \(info.requestType) does not parse: \(error)\n\(json)")
    }
    let name = info.path.split(separator: "/").joined(separator: "-")
    let selector = UInt8(index)
    write("request-\(name)", .request, selector, payload)
    write("json-\(name)", .json, selector, Array(ProtoJSON.encode(payload, descriptor).utf8))
    write("binary-\(name)", .binaryToJSON, selector, payload)
    let request = Envelope(
      callID: UInt64(index + 1), kind: .request, method: info.path,
      metadata: [
        Metadata(key: "authorization", value: "Bearer token"),
        Metadata(key: "locale", value: "zh-CN"),
      ],
      payload: payload)
    write("frame-\(name)", .frames, 0, frame(request))
  }
}

extension ProtoJSON {
  /// The JSON of binary `bytes`, which are known to be valid.
  fileprivate static func encode(_ bytes: [UInt8], _ descriptor: CMessageDescriptor) -> String {
    do {
      return try encode(bytes, as: descriptor, compact: true)
    } catch {
      fatalError("a sample does not print: \(error)")
    }
  }
}

/// A JSON object for the message `descriptor` with every field set: each string "fuzz", each
/// number 1, each enum its first value after the default, each repeated field one element, the
/// first member of each oneof; nested messages down to depth 3.
func sampleJSON(_ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, depth: Int) -> String {
  var members: [String] = []
  var oneofsSeen = Set<UInt32>()
  let message = descriptor.pointee
  for index in 0..<Int(message.n_fields) {
    let field = message.fields[index]
    if field.flags & UInt32(PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue) != 0 {
      guard oneofsSeen.insert(field.quantifier_offset).inserted else { continue }
    }
    let value: String
    switch field.type {
    case PROTOBUF_C_TYPE_STRING: value = "\"fuzz\""
    case PROTOBUF_C_TYPE_BYTES: value = "\"AQID\""
    case PROTOBUF_C_TYPE_BOOL: value = "true"
    case PROTOBUF_C_TYPE_FLOAT, PROTOBUF_C_TYPE_DOUBLE: value = "1.5"
    case PROTOBUF_C_TYPE_ENUM:
      let enumeration = field.descriptor.assumingMemoryBound(to: ProtobufCEnumDescriptor.self)
        .pointee
      let chosen = enumeration.values[min(1, Int(enumeration.n_values) - 1)]
      value = "\"\(String(cString: chosen.name))\""
    case PROTOBUF_C_TYPE_MESSAGE:
      guard depth < 3 else { continue }
      value = sampleJSON(
        field.descriptor.assumingMemoryBound(to: ProtobufCMessageDescriptor.self),
        depth: depth + 1)
    default: value = "1"
    }
    let name = String(cString: field.name)
    members.append(
      field.label == PROTOBUF_C_LABEL_REPEATED ? "\"\(name)\": [\(value)]" : "\"\(name)\": \(value)"
    )
  }
  return "{" + members.joined(separator: ", ") + "}"
}
