import BadmintonDomain
import PropertyBased
import Testing

@Suite("Page tokens")
struct PageTokenTests {
  /// The reason `body` threw, or nil.
  private static func reason(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch let error as DomainError {
      return error.reason
    } catch {
      return "\(error)"
    }
  }

  /// Oracle: a one-value token of `threads` is canonical exactly when its number is ASCII
  /// digits with no leading zero (0 itself aside) and at most `Int64.max`, compared as text.
  private static func isCanonical(_ token: String) -> Bool {
    let prefix = "threads."
    guard token.hasPrefix(prefix) else { return false }
    let digits = Array(token.dropFirst(prefix.count))
    guard !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) && $0.isASCII }),
      digits == ["0"] || digits.first != "0"
    else { return false }
    let maximum = Array(String(Int64.max))
    return digits.count < maximum.count
      || (digits.count == maximum.count && String(digits) <= String(maximum))
  }

  /// Pieces tokens are made of, with the ones forged tokens use: signs, spaces, other digits,
  /// exponents and the names of special numbers.
  private static let pieces = [
    "threads", "threads.", ".", "0", "1", "7", "9", "00", "+", "-", " ", "\t", "\n", "e", "E",
    "x", "nan", "NaN", "inf", "-inf", "Infinity", "١", "１", "\u{0}", "9223372036854775807",
    "9223372036854775808", "-9223372036854775808", "T", "٫",
  ]

  @Test("property: a token is accepted exactly when it is the one text its values give")
  func parse_acceptsOnlyCanonicalText() async {
    let tokens = Generator { rng -> String in
      (0..<Int.random(in: 0...5, using: &rng)).map { _ in
        Self.pieces.randomElement(using: &rng)!
      }.joined()
    }
    await propertyCheck(count: 2000, input: tokens) { token in
      let parsed = try? PageToken.parse(token, kind: "threads", count: 1)
      #expect((parsed != nil) == Self.isCanonical(token), "\(token.debugDescription)")
      if let parsed {
        #expect(PageToken(kind: "threads", values: parsed).text == token)
      }
    }
  }

  @Test("property: every token the server gives out parses back to its values")
  func issued_roundTrips() async {
    let values = Generator { rng -> [Int64] in
      (0..<Int.random(in: 1...4, using: &rng)).map { _ in
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: 0
        case 1: .max
        case 2: Int64.random(in: 0...1000, using: &rng)
        default: Int64.random(in: 0...(.max), using: &rng)
        }
      }
    }
    await propertyCheck(count: 1000, input: values) { values in
      let token = PageToken(kind: "page", values: values)
      #expect((try? PageToken.parse(token.text, kind: "page", count: values.count)) == values)
      // Any other kind or number of values refuses it.
      #expect(
        Self.reason { _ = try PageToken.parse(token.text, kind: "other", count: values.count) }
          == "PAGE_TOKEN_INVALID")
      #expect(
        Self.reason { _ = try PageToken.parse(token.text, kind: "page", count: values.count + 1) }
          == "PAGE_TOKEN_INVALID")
    }
  }

  @Test("tokens never given out are refused, naming the field")
  func forged_refused() throws {
    let forged = [
      "", "threads", "threads.", "threads..1", "threads.1.", "threads.+1", "threads.-1",
      "threads.01", "threads.00", "threads. 1", "threads.1 ", " threads.1", "threads.1\n",
      "threads.-0", "threads.nan", "threads.NaN", "threads.inf", "threads.-inf", "threads.1e3",
      "threads.0x10", "threads.-9223372036854775808", "threads.9223372036854775808",
      "threads.18446744073709551615", "threads.１", "threads.١", "THREADS.1", "3ff0000000000000.5",
      "threads." + String(repeating: "1", count: 200),
    ]
    for token in forged {
      do {
        _ = try PageToken.parse(token, kind: "threads", count: 1, field: "page_token")
        Issue.record("accepted \(token.debugDescription)")
      } catch {
        #expect(error.reason == "PAGE_TOKEN_INVALID")
        #expect(error.kind == .invalidArgument)
        #expect(error.violations.map(\.field) == ["page_token"])
        #expect(error.zhCN == "分页标记无效。")
      }
    }
    #expect(try PageToken.parse("threads.0", kind: "threads", count: 1) == [0])
    #expect(try PageToken.parse("threads.9223372036854775807", kind: "threads", count: 1) == [.max])
  }
}
