import BadmintonRPC
import CBadmintonRPCProto
import PropertyBased

@testable import BadmintonJSON

/// Random messages of any descriptor, built from the descriptor alone, so every message in
/// `Proto/` is covered without code per message.
enum DescriptorGen {
  /// Random binary messages of `descriptor`, as protoc-c would pack them.
  static func messages(_ descriptor: CMessageDescriptor) -> Generator<[UInt8], Shrink.None<[UInt8]>>
  {
    Generator { rng in bytes(descriptor, &rng) }
  }

  /// One random binary message of `descriptor`.
  static func bytes(_ descriptor: CMessageDescriptor, _ rng: inout any SeededRandomNumberGenerator)
    -> [UInt8]
  {
    let model = MessageModel(descriptor)
    var writer = WireWriter()
    writer.writeMessage(tree(model, depth: 0, &rng), model)
    return writer.bytes
  }

  static func tree(
    _ model: MessageModel, depth: Int, _ rng: inout any SeededRandomNumberGenerator
  ) -> ProtoTree {
    var tree = ProtoTree(model)
    var oneofsSet: Set<UInt32> = []
    for (index, field) in model.fields.enumerated() {
      if field.kind == .message && depth >= 3 { continue }
      if field.isRepeated {
        let count = Int.random(in: 0...(depth == 0 ? 4 : 2), using: &rng)
        tree.values[index] = (0..<count).map { _ in value(field, depth: depth, &rng) }
      } else if let oneof = field.oneof {
        guard !oneofsSet.contains(oneof), Int.random(in: 0..<3, using: &rng) == 0 else { continue }
        oneofsSet.insert(oneof)
        tree.values[index] = [value(field, depth: depth, &rng)]
      } else if Int.random(in: 0..<4, using: &rng) != 0 {
        tree.values[index] = [value(field, depth: depth, &rng)]
      }
    }
    return tree
  }

  static func pick<T>(_ choices: [T], _ rng: inout any SeededRandomNumberGenerator) -> T {
    choices[Int.random(in: 0..<choices.count, using: &rng)]
  }

  static func value(
    _ field: FieldModel, depth: Int, _ rng: inout any SeededRandomNumberGenerator
  ) -> ProtoValue {
    let small = Int.random(in: 0..<3, using: &rng) != 0
    switch field.kind {
    case .int32, .sint32, .sfixed32:
      return .int(
        Int64(
          small
            ? Int32.random(in: -300...300, using: &rng)
            : pick([Int32.min, Int32.max, -1, Int32.random(in: .min ... .max, using: &rng)], &rng)))
    case .int64, .sint64, .sfixed64:
      return .int(
        small
          ? Int64.random(in: -300...300, using: &rng)
          : pick([Int64.min, Int64.max, -1, Int64.random(in: .min ... .max, using: &rng)], &rng))
    case .uint32, .fixed32:
      return .uint(
        UInt64(
          small
            ? UInt32.random(in: 0...300, using: &rng)
            : pick([UInt32.max, UInt32.random(in: 0 ... .max, using: &rng)], &rng)))
    case .uint64, .fixed64:
      return .uint(
        small
          ? UInt64.random(in: 0...300, using: &rng)
          : pick([UInt64.max, UInt64.random(in: 0 ... .max, using: &rng)], &rng))
    case .float:
      return .float(
        pick(
          [
            0, 1, -2.5, 0.1, .nan, .infinity, -.infinity, .greatestFiniteMagnitude,
            .leastNonzeroMagnitude, Float.random(in: -1e6...1e6, using: &rng),
          ], &rng))
    case .double:
      return .double(
        pick(
          [
            0, 1, -2.5, 0.1, 51.5072, -0.1276, .nan, .infinity, -.infinity,
            .greatestFiniteMagnitude,
            .leastNonzeroMagnitude, 1e21, Double.random(in: -1e9...1e9, using: &rng),
          ], &rng))
    case .bool:
      return .bool(Bool.random(using: &rng))
    case .enumeration:
      guard let descriptor = field.enumDescriptor, Int.random(in: 0..<8, using: &rng) != 0 else {
        return .enumeration(pick([99, -5, 1000], &rng))
      }
      let index = Int.random(in: 0..<Int(descriptor.pointee.n_values), using: &rng)
      return .enumeration(descriptor.pointee.values[index].value)
    case .string:
      return .string(string(&rng))
    case .bytes:
      return .bytes(
        (0..<Int.random(in: 0...20, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng)
        })
    case .message:
      return .message(tree(MessageModel(field.messageDescriptor!), depth: depth + 1, &rng))
    }
  }

  /// Random text: ASCII (quotes, backslashes and control characters included), CJK and emoji;
  /// never U+0000, where protobuf-c strings end.
  static func string(_ rng: inout any SeededRandomNumberGenerator) -> String {
    var scalars = String.UnicodeScalarView()
    for _ in 0..<Int.random(in: 0...12, using: &rng) {
      switch Int.random(in: 0..<10, using: &rng) {
      case 0: scalars.append(Unicode.Scalar(UInt32.random(in: 0x4E00...0x9FFF, using: &rng))!)
      case 1: scalars.append(Unicode.Scalar(UInt32.random(in: 0x1F300...0x1F64F, using: &rng))!)
      case 2: scalars.append(pick(["\"", "\\", "\n", "\t", "\u{01}", "\u{7F}", "/"], &rng))
      default: scalars.append(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &rng)))
      }
    }
    return String(scalars)
  }

  /// protoc-c's own encoding of `bytes`: unpacked, then packed again; nil when it refuses them.
  static func protocC(_ bytes: [UInt8], _ descriptor: CMessageDescriptor) -> [UInt8]? {
    var empty: UInt8 = 0
    let unpacked = bytes.withUnsafeBufferPointer { buffer in
      withUnsafeMutablePointer(to: &empty) { emptyPointer in
        cbadminton_unpack(
          descriptor.pointer, buffer.count, buffer.baseAddress ?? UnsafePointer(emptyPointer))
      }
    }
    guard let unpacked else { return nil }
    defer { cbadminton_free_unpacked(unpacked) }
    let size = cbadminton_packed_size(unpacked)
    return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
      count = size == 0 ? 0 : cbadminton_pack(unpacked, buffer.baseAddress!)
    }
  }
}
