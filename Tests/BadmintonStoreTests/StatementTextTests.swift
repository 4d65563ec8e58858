import Testing

@testable import BadmintonStoreSQL

/// The SQLite text the store derives from a statement's PostgreSQL text.
@Suite("Statement text for SQLite")
struct StatementTextTests {
  @Test("$n becomes ?n outside quotes and stays inside them")
  func placeholders() {
    #expect(
      SQLiteText.convert("SELECT a FROM t WHERE a = $1 AND b = '$2' AND c > $10")
        == "SELECT a FROM t WHERE a = ?1 AND b = '$2' AND c > ?10")
    #expect(SQLiteText.convert("SELECT '$' || x, y$1") == "SELECT '$' || x, y?1")
  }

  @Test("every = ANY($n) reads the list's JSON, also after one that is not a plain list")
  func lists() {
    #expect(
      SQLiteText.convert("SELECT 1 WHERE a = ANY($1::bigint[]) AND b = ANY($2) AND c = ANY($3)")
        == "SELECT 1 WHERE a = ANY(?1::bigint[]) AND b IN (SELECT value FROM json_each(?2))"
        + " AND c IN (SELECT value FROM json_each(?3))")
    #expect(SQLiteText.convert("SELECT '= ANY($1)'") == "SELECT '= ANY($1)'")
  }

  @Test("an empty list binds as an empty list, bytes as bytes")
  func emptyLists() {
    #expect([Int64]().storeValue == .integers([]))
    #expect([String]().storeValue == .texts([]))
    #expect([UInt8]().storeValue == .blob([]))
    #expect([Int64(3), 4].storeValue == .integers([3, 4]))
  }
}
