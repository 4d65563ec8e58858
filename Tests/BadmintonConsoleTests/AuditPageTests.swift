import BadmintonConsole
import HTTPTypes
import HummingbirdTesting
import Synchronization
import Testing

@Suite("Console Audit log page")
struct AuditPageTests {
  static func entries(_ count: Int64) -> [ConsoleAuditEntry] {
    (1...count).map { id in
      ConsoleAuditEntry(
        id: id, atUnixMs: 1_740_000_000_000 + id * 60_000, administratorID: 1,
        action: id % 2 == 0 ? "suspend" : "end_sessions", playerID: id % 3 == 0 ? nil : 7,
        note: "note <\(id)>")
    }
  }

  @Test("the audit log pages by 50, newest first, with an Older link")
  func audit_paging() async throws {
    try await withConsole { client, backend in
      backend.state.withLock { $0.audit = Self.entries(120) }
      let browser = try await signedIn(client)
      let first = try await browser.get(client, "/audit")
      #expect(first.status == .ok)
      #expect(first.text.contains("<table id=\"audit\">"))
      #expect(first.text.contains("<tr><td>120</td>"))
      #expect(first.text.contains("<tr><td>71</td>"))
      #expect(!first.text.contains("<tr><td>70</td>"))
      #expect(first.text.contains("href=\"/audit?before=71\""))
      #expect(backend.calls.last == .auditLog(beforeID: nil, limit: 51))

      let second = try await browser.get(client, "/audit?before=71")
      #expect(second.text.contains("<tr><td>70</td>"))
      #expect(second.text.contains("<tr><td>21</td>"))
      #expect(second.text.contains("href=\"/audit?before=21\""))
      #expect(backend.calls.last == .auditLog(beforeID: 71, limit: 51))

      let third = try await browser.get(client, "/audit?before=21")
      #expect(third.text.contains("<tr><td>20</td>"))
      #expect(third.text.contains("<tr><td>1</td>"))
      #expect(!third.text.contains("id=\"older\""))
      #expect(third.text.contains("id=\"newest\""))
    }
  }

  @Test("an entry shows its time in UTC, administrator, action, player link and escaped note")
  func audit_entry() async throws {
    try await withConsole { client, backend in
      backend.state.withLock { $0.audit = Self.entries(3) }
      let browser = try await signedIn(client)
      let html = try await browser.get(client, "/audit").text
      #expect(
        html.contains(
          "<tr><td>2</td><td>2025-02-19 21:22 UTC</td><td>1</td><td>suspend</td>"
            + "<td><a href=\"/players/7\">7</a></td><td>note &lt;2&gt;</td></tr>"))
      #expect(
        html.contains(
          "<tr><td>3</td><td>2025-02-19 21:23 UTC</td><td>1</td><td>end_sessions</td><td></td>"))
    }
  }

  @Test("an empty audit log says so")
  func audit_empty() async throws {
    try await withConsole { client, _ in
      let browser = try await signedIn(client)
      let html = try await browser.get(client, "/audit").text
      #expect(html.contains("id=\"no-entries\""))
    }
  }

  @Test("a bad position is refused", arguments: ["abc", "0", "-5"])
  func audit_badBefore(before: String) async throws {
    try await withConsole { client, backend in
      let browser = try await signedIn(client)
      let response = try await browser.get(client, "/audit?before=\(before)")
      #expect(response.status == .badRequest)
      #expect(!backend.calls.contains { if case .auditLog = $0 { true } else { false } })
    }
  }
}
