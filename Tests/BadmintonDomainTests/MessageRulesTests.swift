import BadmintonDomain
import Foundation
import PropertyBased
import Testing

@Suite("Message rules")
struct MessageRulesTests {
  private func reason(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch let error as DomainError {
      return error.reason
    } catch {
      return "NOT_A_DOMAIN_ERROR"
    }
  }

  /// Pieces that each make exactly one character and never join a neighbour: the oracle counts
  /// pieces, not grapheme clusters.
  private static let visible = [
    "a", "Z", "7", "林", "羽", "🏸", "e\u{301}", "a\u{308}\u{323}", "👨‍👩‍👧", "🇨🇳", "👍🏽", "한",
  ]
  private static let blank = [" ", "\t", "\n", "\u{3000}", "\u{A0}", "\u{2028}"]

  @Test("property 16: text is accepted exactly when it has 1 to 1000 characters, not all blank")
  func text_matchesOracle() async {
    let edges = [0, 1, 2, 999, 1000, 1001, 1002]
    let messages = Generator { rng -> [String] in
      let length =
        Bool.random(using: &rng)
        ? edges.randomElement(using: &rng)! : Int.random(in: 0...1200, using: &rng)
      let blankOnly = Int.random(in: 0..<4, using: &rng) == 0
      return (0..<length).map { _ in
        blankOnly || Bool.random(using: &rng)
          ? Self.blank.randomElement(using: &rng)! : Self.visible.randomElement(using: &rng)!
      }
    }
    await propertyCheck(count: 600, input: messages) { pieces in
      let text = pieces.joined()
      // Oracle: the number of pieces, and Foundation's idea of white space.
      let blank = text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
      let expected: String? =
        pieces.count > 1000 ? "MESSAGE_TOO_LONG" : blank ? "MESSAGE_EMPTY" : nil
      #expect(reason { _ = try MessageRules.validateText(text) } == expected)
    }
  }

  @Test("characters are grapheme clusters, and a mark on a space is not blank")
  func text_edges() throws {
    let family = "👨‍👩‍👧"
    #expect(family.unicodeScalars.count == 5)
    #expect(try MessageRules.validateText(String(repeating: family, count: 1000)).count == 1000)
    #expect(
      reason { _ = try MessageRules.validateText(String(repeating: family, count: 1001)) }
        == "MESSAGE_TOO_LONG")
    #expect(try MessageRules.validateText(String(repeating: "消", count: 1000)).utf8.count == 3000)
    #expect(reason { _ = try MessageRules.validateText("") } == "MESSAGE_EMPTY")
    #expect(reason { _ = try MessageRules.validateText(" \n\t\u{3000}") } == "MESSAGE_EMPTY")
    #expect(try MessageRules.validateText(" \u{301}") == " \u{301}")
    #expect(try MessageRules.validateText("  hi  ") == "  hi  ")
    // One character stacked with thousands of combining marks is refused by its size.
    let stacked = "a" + String(repeating: "\u{301}", count: 20_000)
    #expect(stacked.count == 1)
    #expect(reason { _ = try MessageRules.validateText(stacked) } == "MESSAGE_TOO_LONG")
    #expect(MessageErrors.messageTooLong.zhCN == "消息不能超过1000字")
    #expect(MessageErrors.messageTooLong.violations.map(\.field) == ["text"])
    #expect(MessageErrors.messageEmpty.violations.map(\.field) == ["text"])
  }

  @Test("client message ids have 1 to 64 characters")
  func clientMessageID() throws {
    #expect(try MessageRules.validateClientMessageID("a") == "a")
    #expect(try MessageRules.validateClientMessageID(String(repeating: "🏸", count: 64)).count == 64)
    for bad in ["", String(repeating: "x", count: 65)] {
      #expect(
        reason { _ = try MessageRules.validateClientMessageID(bad) } == "CLIENT_MESSAGE_ID_INVALID")
    }
  }

  @Test("a page limit of 0 means the maximum; negative or above the maximum is refused")
  func pageLimit() throws {
    #expect(try MessageRules.pageLimit(0, maximum: 50) == 50)
    #expect(try MessageRules.pageLimit(1, maximum: 50) == 1)
    #expect(try MessageRules.pageLimit(50, maximum: 50) == 50)
    #expect(try MessageRules.pageLimit(500, maximum: 500) == 500)
    for bad: Int32 in [-1, 51, .min, .max] {
      #expect(reason { _ = try MessageRules.pageLimit(bad, maximum: 50) } == "LIMIT_OUT_OF_RANGE")
    }
  }
}
