import Foundation
import SwiftProtobuf
import SwiftProtobufPluginLibrary
import Testing

@testable import badminton_codegen

/// Runs a program to completion; its standard output.
func run(_ program: String, _ arguments: [String], in directory: URL) throws -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: program)
  process.arguments = arguments
  process.currentDirectoryURL = directory
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  let text = output.fileHandleForReading.readDataToEndOfFile()
  let errorText = errors.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw CodegenError(description: String(decoding: errorText, as: UTF8.self))
  }
  return String(decoding: text, as: UTF8.self)
}

/// A folder with `files` written in it, removed after `body`.
func withProtoFolder<T>(_ files: [String: String], _ body: (URL) throws -> T) throws -> T {
  let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("codegen-\(UUID().uuidString)")
  defer { try? FileManager.default.removeItem(at: folder) }
  for (path, text) in files {
    let url = folder.appendingPathComponent(path)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try text.write(to: url, atomically: true, encoding: .utf8)
  }
  return try body(folder)
}

/// A random name of `words` capitalized words, some with digits: `GeoPoint2Kind`.
func typeName(_ rng: inout SystemRandomNumberGenerator, words: Int) -> String {
  (0..<words).map { _ in
    let letters = "abcdefghijklmnopqrstuvwxyz0123456789"
    let head = String("ABCDEFGHIJKLMNOPQRSTUVWXYZ".randomElement(using: &rng)!)
    let tail = (0..<Int.random(in: 1...5, using: &rng)).map { index in
      // A lower-case letter first, so that a word never ends in a capital.
      index == 0
        ? String("abcdefghijklmnopqrstuvwxyz".randomElement(using: &rng)!)
        : String(letters.randomElement(using: &rng)!)
    }.joined()
    return head + tail
  }.joined()
}

/// A random field name: lower-case words joined by `_`.
func fieldName(_ rng: inout SystemRandomNumberGenerator, index: Int) -> String {
  let words = ["user", "id", "ids", "at", "unix", "ms", "level", "match", "room", "x2", "url"]
  return (0..<Int.random(in: 1...3, using: &rng)).map { _ in words.randomElement(using: &rng)! }
    .joined(separator: "_") + "_f\(index)"
}

@Suite("The generator's names are protoc-c's")
struct NamingTests {
  @Test("for random messages and oneofs, every C name the Swift uses is in protoc-c's header")
  func randomNames_matchProtocC() throws {
    var rng = SystemRandomNumberGenerator()
    for round in 0..<20 {
      var proto = "syntax = \"proto3\";\npackage badminton.v\(round);\n"
      var expected: [String] = []
      var usedTypes = Set<String>()
      for _ in 0..<8 {
        let name = typeName(&rng, words: Int.random(in: 1...4, using: &rng))
        guard usedTypes.insert(name).inserted else { continue }
        let package = "badminton.v\(round)"
        let oneof = fieldName(&rng, index: 99)
        let fields = (0..<3).map { fieldName(&rng, index: $0) }
        proto += "message \(name) {\n"
        proto += "  int32 \(fields[0]) = 1;\n  repeated string \(fields[1]) = 2;\n"
        proto += "  oneof \(oneof) { bool \(fields[2]) = 3; }\n}\n"
        let lower = Naming.cLowerName(package: package, name: name)
        let upper = Naming.cUpperName(package: package, name: name)
        expected += [
          "typedef struct \(Naming.cTypeName(package: package, name: name)) "
            + "\(Naming.cTypeName(package: package, name: name));",
          "void   \(lower)__init\n", "\(lower)__descriptor;",
          " \(Naming.cMember(fields[0]));", " n_\(Naming.cMember(fields[1]));",
          "\(upper)__\(oneof.uppercased())_\(fields[2].uppercased()) = 3",
          "\(upper)__\(oneof.uppercased())__NOT_SET = 0", " \(Naming.cMember(oneof))_case;",
        ]
      }
      let header = try withProtoFolder(["t.proto": proto]) { folder in
        _ = try run("/usr/bin/protoc-c", ["--c_out=.", "t.proto"], in: folder)
        return try String(contentsOf: folder.appendingPathComponent("t.pb-c.h"), encoding: .utf8)
      }
      for name in expected {
        #expect(header.contains(name), "\(name) in\n\(proto)")
      }
    }
  }

  @Test("Swift names: lower camel case with ID and IDs; enum values without their prefixes")
  func swiftNames() {
    #expect(Naming.lowerCamel("user_id") == "userID")
    #expect(Naming.lowerCamel("candidate_availability_ids") == "candidateAvailabilityIDs")
    #expect(Naming.lowerCamel("created_at_unix_ms") == "createdAtUnixMs")
    #expect(Naming.lowerCamel("id") == "id")
    #expect(
      Naming.enumCases(
        ["VERIFICATION_KIND_UNSPECIFIED", "REGIONAL_CHAMPIONSHIP"], enumName: "VerificationKind")
        == ["unspecified", "regionalChampionship"])
    #expect(
      Naming.enumCases(
        ["INVITEE_ANSWER_UNSPECIFIED", "ANSWER_PENDING", "ANSWER_ACCEPTED"],
        enumName: "InviteeAnswer", valuePrefix: "ANSWER_") == [
          "unspecified", "pending", "accepted",
        ])
    // Without a declared prefix, values keep their names: adding one never renames the others.
    #expect(
      Naming.enumCases(["WIDEN_TIME", "WIDEN_RADIUS"], enumName: "RelaxationKind")
        == ["widenTime", "widenRadius"])
    // A prefix that would leave a name starting with a digit stays.
    #expect(Naming.enumCases(["MODE_2V2", "MODE_SOLO"], enumName: "Mode") == ["mode2v2", "solo"])
    #expect(Naming.escaped("internal") == "`internal`")
  }
}

@Suite("The generator refuses what it would bridge wrongly")
struct ValidationTests {
  /// The contract's own options.
  static let options = try! String(
    contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../../Proto/badminton/rpc/v1/options.proto"),
    encoding: .utf8)

  /// The generator's verdict on `proto` (as `badminton/v1/t.proto`, beside the contract's
  /// options).
  func verdict(_ proto: String) throws -> String? {
    try withProtoFolder(
      ["badminton/v1/t.proto": proto, "badminton/rpc/v1/options.proto": Self.options]
    ) { folder in
      _ = try run(
        "/usr/bin/protoc",
        ["--include_imports", "--descriptor_set_out=set.pb", "-I", ".", "badminton/v1/t.proto"],
        in: folder)
      let data = try Data(contentsOf: folder.appendingPathComponent("set.pb"))
      let set = DescriptorSet(
        proto: try Google_Protobuf_FileDescriptorSet(
          serializedBytes: data,
          extensions: SimpleExtensionMap([alwaysPresentOption, valuePrefixOption])))
      do {
        try Validation.check(set.files.filter { $0.package == "badminton.v1" })
        return nil
      } catch let error as CodegenError {
        return error.description
      }
    }
  }

  @Test("a plain proto3 file passes")
  func plainFile_passes() throws {
    #expect(
      try verdict("syntax = \"proto3\"; package badminton.v1; message GeoPoint { double x = 1; }")
        == nil)
  }

  @Test(
    "two capitals in a row, a C++ keyword, proto2, clashing enum values and misplaced options are refused"
  )
  func badInput_isRefused() throws {
    let cases = [
      (
        "syntax = \"proto3\"; package badminton.v1; message HTTPThing { int32 a = 1; }", "HTTPThing"
      ),
      ("syntax = \"proto3\"; package badminton.v1; message Thing { int32 new = 1; }", "Thing.new"),
      (
        "syntax = \"proto2\"; package badminton.v1; message Thing { optional int32 a = 1; }",
        "proto3"
      ),
      (
        """
        syntax = "proto3"; package badminton.v1; import "badminton/rpc/v1/options.proto";
        enum Mode {
          option (badminton.rpc.v1.value_prefix) = "KIND_"; MODE_UNSPECIFIED = 0; MODE_OK = 1;
          KIND_OK = 2;
        }
        """,
        "same Swift name"
      ),
      (
        """
        syntax = "proto3"; package badminton.v1; import "badminton/rpc/v1/options.proto";
        enum Mode { option (badminton.rpc.v1.value_prefix) = "KIND_"; MODE_UNSPECIFIED = 0; }
        """,
        "no value has its value_prefix"
      ),
      (
        """
        syntax = "proto3"; package badminton.v1; import "badminton/rpc/v1/options.proto";
        message Thing { int32 a = 1 [(badminton.rpc.v1.always_present) = true]; }
        """,
        "always_present is for singular message fields"
      ),
    ]
    for (proto, phrase) in cases {
      let verdict = try verdict(proto)
      #expect(verdict?.contains(phrase) == true, "\(proto): \(verdict ?? "accepted")")
    }
  }
}
