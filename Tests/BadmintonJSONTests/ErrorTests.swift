import BadmintonAPI
import BadmintonJSON
import BadmintonRPC
import PropertyBased
import Testing

@Suite("JSON errors name the line and column (property 23)")
struct ErrorTests {
  /// The error `json` raises as `descriptor`, or nil when it is accepted.
  static func error(_ json: String, _ descriptor: CMessageDescriptor) -> ProtoJSONError? {
    do {
      _ = try ProtoJSON.decode(json, as: descriptor)
      return nil
    } catch {
      return error
    }
  }

  static func expectError(
    _ json: String, _ descriptor: CMessageDescriptor = Profile.cDescriptor,
    line: Int, column: Int, _ message: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let error = Self.error(json, descriptor)
    #expect(
      error == ProtoJSONError(line: line, column: column, message: message),
      sourceLocation: sourceLocation)
  }

  @Test("syntax errors")
  func syntax() {
    Self.expectError(
      "{\n  \"nickname\" \"Ana\"\n}", line: 2, column: 14,
      "expected ':' after field name, found '\"'")
    Self.expectError(
      "{\n  \"nickname\": \"Ana\n}", line: 2, column: 19,
      "control character in string; write it as an escape")
    Self.expectError("{\"nickname\": \"Ana", line: 1, column: 14, "unterminated string")
    Self.expectError(
      "{\"nickname\": \"Ana\"} x", line: 1, column: 21,
      "expected end of input after the JSON value, found 'x'")
    Self.expectError(
      "{\"nickname\": \"Ana\",}", line: 1, column: 20,
      "expected a field name in double quotes, found '}'")
    Self.expectError(
      "{\"selfLevel\": 1 \"wins\": 2}", line: 1, column: 17,
      "expected ',' or '}' after field value, found '\"'")
    Self.expectError("{\"newPlayer\": tru}", line: 1, column: 18, "expected 'true', found '}'")
    Self.expectError("{\"selfLevel\": -}", line: 1, column: 16, "expected a digit, found '}'")
    Self.expectError("", line: 1, column: 1, "expected a value, found end of input")
    Self.expectError(
      "{\"nickname\": \"\\q\"}", line: 1, column: 16,
      "expected an escape character after '\\', found 'q'")
    let deep = String(repeating: "[", count: 70)
    Self.expectError(deep, line: 1, column: 65, "values nested deeper than 64")
  }

  @Test("names, types and ranges")
  func semantics() {
    Self.expectError(
      "{\n  \"fooBar\": 1\n}", line: 2, column: 3,
      "unknown field \"fooBar\" in badminton.v1.Profile")
    Self.expectError(
      "{\"nickname\": \"a\", \"nickname\": \"b\"}", line: 1, column: 19,
      "duplicate field \"nickname\"")
    Self.expectError(
      "{\"self_level\": 1, \"selfLevel\": 2}", line: 1, column: 19, "duplicate field \"selfLevel\"")
    Self.expectError(
      "{\"selfLevel\": 4294967296}", line: 1, column: 15,
      "value 4294967296 out of range for int32 field \"selfLevel\"")
    Self.expectError(
      "{\"selfLevel\": 1.5}", line: 1, column: 15,
      "value 1.5 is not an integer for int32 field \"selfLevel\"")
    Self.expectError(
      "{\"sequence\": \"-1\"}", Event.cDescriptor, line: 1, column: 14,
      "value -1 out of range for uint64 field \"sequence\"")
    Self.expectError(
      "{\"userId\": \"9223372036854775808\"}", line: 1, column: 12,
      "value 9223372036854775808 out of range for int64 field \"userId\"")
    Self.expectError(
      "{\"state\": \"ACCEPTED\"}", FriendRequest.cDescriptor, line: 1, column: 11,
      "unknown enum value \"ACCEPTED\" for badminton.v1.FriendRequestState")
    Self.expectError(
      "{\"nickname\": 5}", line: 1, column: 14,
      "expected a string for string field \"nickname\", found a number")
    Self.expectError(
      "[]", line: 1, column: 1, "expected an object for badminton.v1.Profile, found an array")
    Self.expectError(
      "{\"winRate\": 1e999}", line: 1, column: 13,
      "value 1e999 out of range for double field \"winRate\"")
    Self.expectError(
      "{\"friendRequestReceived\": {}, \"roomInvitation\": {}}", Event.cDescriptor, line: 1,
      column: 31,
      "field \"roomInvitation\" and field \"friendRequestReceived\" belong to the same oneof")
  }

  @Test("what parsing accepts besides the canonical form")
  func lenient() throws {
    let json = """
      {"user_id": 12, "selfLevel": "3", "winRate": "NaN", "nickname": null, "reputation": {}}
      """
    let profile = try ProtoJSON.decode(json, as: Profile.self)
    #expect(profile.userID == 12 && profile.selfLevel == 3 && profile.winRate.isNaN)
    let request = try ProtoJSON.decode("{\"state\": 2}", as: FriendRequest.self)
    #expect(request.state == .accepted)
    let document = try ProtoJSON.decode(
      "{\"document\": \"-_8\"}", as: VerificationDocument.cDescriptor)
    let standard = try ProtoJSON.decode(
      "{\"document\": \"+/8=\"}", as: VerificationDocument.cDescriptor)
    #expect(document == standard)
  }

  /// The index of the scalar where the token holding scalar `index` of `scalars` starts (strings
  /// with their quotes, numbers, literals); `index` itself between tokens.
  static func tokenStarts(_ scalars: [Unicode.Scalar]) -> [Int] {
    var starts = Array(scalars.indices)
    var index = 0
    while index < scalars.count {
      let start = index
      if scalars[index] == "\"" {
        index += 1
        while index < scalars.count && scalars[index] != "\"" {
          index += scalars[index] == "\\" ? 2 : 1
        }
        index = min(index + 1, scalars.count)
      } else if scalars[index].properties.isAlphabetic
        || "-0123456789".unicodeScalars.contains(scalars[index])
      {
        while index < scalars.count
          && (scalars[index].properties.isAlphabetic
            || "-+.0123456789".unicodeScalars.contains(scalars[index]))
        {
          index += 1
        }
      } else {
        index += 1
      }
      for covered in start..<index { starts[covered] = start }
    }
    return starts
  }

  /// The scalar index of 1-based `line` and `column` in `scalars`.
  static func offset(line: Int, column: Int, in scalars: [Unicode.Scalar]) -> Int? {
    var currentLine = 1
    var currentColumn = 1
    for (index, scalar) in scalars.enumerated() {
      if currentLine == line && currentColumn == column { return index }
      if scalar == "\n" {
        currentLine += 1
        currentColumn = 1
      } else {
        currentColumn += 1
      }
    }
    return currentLine == line && currentColumn == column ? scalars.count : nil
  }

  /// True for a scalar that a number or a literal (`true`, `null`, ...) can hold.
  static func continuesBareToken(_ scalar: Unicode.Scalar) -> Bool {
    scalar.properties.isAlphabetic || "-+.0123456789".unicodeScalars.contains(scalar)
  }

  /// A random valid JSON message and one random corruption of it.
  static let corruptions = Generator {
    rng -> (
      json: [Unicode.Scalar], descriptor: CMessageDescriptor, operation: Int, position: Int,
      character: Unicode.Scalar
    ) in
    let descriptors = RoundTripTests.descriptors
    var descriptor = descriptors[0]
    var json = ""
    // Prefer messages with content to corrupt.
    for _ in 0..<4 {
      descriptor = descriptors[Int.random(in: 0..<descriptors.count, using: &rng)]
      let bytes = DescriptorGen.bytes(descriptor, &rng)
      json = (try? ProtoJSON.encode(bytes, as: descriptor)) ?? "{}"
      if json.count > 20 { break }
    }
    let scalars = Array(json.unicodeScalars)
    let operation = Int.random(in: 0..<3, using: &rng)
    let position = Int.random(
      in: 0..<(operation == 0 ? scalars.count + 1 : scalars.count), using: &rng)
    let character = DescriptorGen.pick(
      Array("#@%;~!{}[]:,\"0123456789aeE.-+ \n\\xtn".unicodeScalars), &rng)
    return (scalars, descriptor, operation, position, character)
  }

  @Test("corrupted JSON is refused at or after the corrupted token, garbage exactly where inserted")
  func corruptions() async {
    await propertyCheck(count: 600, input: Self.corruptions) { sample in
      let (original, descriptor, operation, position, character) = sample
      var corrupted = original
      switch operation {
      case 0: corrupted.insert(character, at: position)
      case 1: corrupted.remove(at: position)
      default: corrupted[position] = character
      }
      let text = String(String.UnicodeScalarView(corrupted))
      guard let error = Self.error(text, descriptor) else { return }
      guard let offset = Self.offset(line: error.line, column: error.column, in: corrupted) else {
        Issue.record("\(error) is outside the text\n\(text)")
        return
      }
      let starts = Self.tokenStarts(original)
      let insideToken = position > 0 && position < original.count && starts[position] < position
      // A character that can continue a number or literal, written just after one, joins it:
      // the error may then rightly point at where that longer token starts.
      let joinsPrevious =
        operation != 1 && position > 0 && Self.continuesBareToken(character)
        && Self.continuesBareToken(original[position - 1])
        && original[starts[position - 1]] != "\""
      var bound = operation == 0 ? (insideToken ? starts[position] : position) : starts[position]
      if joinsPrevious { bound = min(bound, starts[position - 1]) }
      #expect(offset >= bound, "\(error) before the corruption at \(position)\n\(text)")
      let isGarbage = "#@%;~!".unicodeScalars.contains(character)
      let insideString = insideToken && original[starts[position]] == "\""
      if operation == 0 && isGarbage && !insideString {
        #expect(offset == position, "\(error), inserted at \(position)\n\(text)")
      }
    }
  }
}
