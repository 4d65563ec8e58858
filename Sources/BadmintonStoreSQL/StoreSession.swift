import Foundation
import Synchronization

/// A statement of the store, written once for both engines: PostgreSQL's text, with `$1`, `$2`,
/// … for its values. The embedded store runs the same text with SQLite's `?1`, `?2`, … unless
/// the statement gives `sqlite` text of its own (for the few places where the two dialects
/// differ: array values, upserts, functions). Each statement is a type of its own,
/// `enum RoomByID: StoreStatement { static let sql = "..." }`, so that each engine prepares it
/// once per connection and finds it again by its type.
public protocol StoreStatement {
  /// The statement in PostgreSQL's dialect.
  static var sql: String { get }
  /// The statement in SQLite's dialect; by default `sql` with `$n` written `?n`.
  static var sqlite: String { get }
}

extension StoreStatement {
  public static var sqlite: String { SQLiteText.of(Self.self) }
}

/// `sql` with `$n` written `?n` and `= ANY($n)` written `IN (SELECT value FROM json_each(?n))`
/// (a list is bound as a JSON array on SQLite), worked out once per statement type.
enum SQLiteText {
  private static let known = Mutex<[ObjectIdentifier: String]>([:])

  static func of<Statement: StoreStatement>(_ statement: Statement.Type) -> String {
    let key = ObjectIdentifier(statement)
    if let text = known.withLock({ $0[key] }) { return text }
    let text = convert(Statement.sql)
    known.withLock { $0[key] = text }
    return text
  }

  /// `$n` outside quotes becomes `?n`, and `= ANY($n)` outside quotes reads the list's JSON.
  /// The store's statements hold no comments: SQL text is all they are.
  static func convert(_ sql: String) -> String {
    var out = ""
    out.reserveCapacity(sql.utf8.count)
    var quoted = false
    var rest = Substring(sql)
    while let character = rest.first {
      if character == "'" { quoted.toggle() }
      if !quoted, rest.hasPrefix("= ANY($") {
        let digits = rest.dropFirst(7).prefix(while: \.isNumber)
        let after = rest.dropFirst(7 + digits.count)
        if !digits.isEmpty, after.first == ")" {
          out += "IN (SELECT value FROM json_each(?\(digits)))"
          rest = after.dropFirst()
          continue
        }
      }
      if !quoted, character == "$", let next = rest.dropFirst().first, next.isNumber {
        out.append("?")
      } else {
        out.append(character)
      }
      rest = rest.dropFirst()
    }
    return out
  }
}

/// What a statement is given for one of its `$n`.
public enum StoreValue: Sendable, Hashable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob([UInt8])
  /// A list of integers, for `= ANY($n)` on PostgreSQL; the embedded store binds it as a JSON
  /// array, read with `json_each`.
  case integers([Int64])
  /// A list of strings, as `integers`.
  case texts([String])
}

/// A Swift value a statement can be given.
public protocol StoreEncodable {
  var storeValue: StoreValue { get }
}

/// A Swift value a column can be read as.
public protocol StoreDecodable {
  init(storeValue: StoreValue) throws
}

/// A column held a value of another kind than the one read.
public struct StoreDecodingError: Error, CustomStringConvertible {
  public var value: StoreValue
  public var wanted: String
  public var description: String { "cannot read \(value) as \(wanted)" }
}

extension Int64: StoreEncodable, StoreDecodable {
  public var storeValue: StoreValue { .integer(self) }
  public init(storeValue: StoreValue) throws {
    switch storeValue {
    case .integer(let value): self = value
    case .real(let value) where value.rounded() == value: self = Int64(value)
    case .text(let text) where Int64(text) != nil: self = Int64(text)!
    default: throw StoreDecodingError(value: storeValue, wanted: "Int64")
    }
  }
}

extension Int: StoreEncodable, StoreDecodable {
  public var storeValue: StoreValue { .integer(Int64(self)) }
  public init(storeValue: StoreValue) throws { self = Int(try Int64(storeValue: storeValue)) }
}

extension Int32: StoreEncodable, StoreDecodable {
  public var storeValue: StoreValue { .integer(Int64(self)) }
  public init(storeValue: StoreValue) throws { self = Int32(try Int64(storeValue: storeValue)) }
}

extension UInt64: StoreDecodable {
  public init(storeValue: StoreValue) throws { self = UInt64(try Int64(storeValue: storeValue)) }
}

extension Bool: StoreEncodable, StoreDecodable {
  /// As 0 or 1: the store's flags are integers on both engines.
  public var storeValue: StoreValue { .integer(self ? 1 : 0) }
  public init(storeValue: StoreValue) throws { self = try Int64(storeValue: storeValue) != 0 }
}

extension Double: StoreEncodable, StoreDecodable {
  public var storeValue: StoreValue { .real(self) }
  public init(storeValue: StoreValue) throws {
    switch storeValue {
    case .real(let value): self = value
    case .integer(let value): self = Double(value)
    default: throw StoreDecodingError(value: storeValue, wanted: "Double")
    }
  }
}

extension String: StoreEncodable, StoreDecodable {
  public var storeValue: StoreValue { .text(self) }
  public init(storeValue: StoreValue) throws {
    switch storeValue {
    case .text(let value): self = value
    case .integer(let value): self = String(value)
    default: throw StoreDecodingError(value: storeValue, wanted: "String")
    }
  }
}

extension Array: StoreEncodable where Element: StoreEncodable {
  /// Bytes as a blob; integers and strings as a list.
  public var storeValue: StoreValue {
    // By the element's type, so that an empty list binds as an empty list, not as no bytes.
    if Element.self == UInt8.self { return .blob(self as! [UInt8]) }
    if Element.self == Int64.self { return .integers(self as! [Int64]) }
    if Element.self == String.self { return .texts(self as! [String]) }
    return .integers(
      map {
        if case .integer(let value) = $0.storeValue { return value }
        preconditionFailure("only bytes, integers and strings bind as a list")
      })
  }
}

extension UInt8: StoreEncodable {
  public var storeValue: StoreValue { .integer(Int64(self)) }
}

extension Array: StoreDecodable where Element == UInt8 {
  public init(storeValue: StoreValue) throws {
    switch storeValue {
    case .blob(let bytes): self = bytes
    default: throw StoreDecodingError(value: storeValue, wanted: "[UInt8]")
    }
  }
}

extension Optional: StoreEncodable where Wrapped: StoreEncodable {
  public var storeValue: StoreValue { self?.storeValue ?? .null }
}

extension Optional: StoreDecodable where Wrapped: StoreDecodable {
  public init(storeValue: StoreValue) throws {
    if case .null = storeValue { self = nil } else { self = try Wrapped(storeValue: storeValue) }
  }
}

/// One row a statement returned, its columns in order.
public struct StoreRow: Sendable {
  public var values: [StoreValue]

  public init(_ values: [StoreValue]) { self.values = values }

  /// The columns from `first` on (the first column by default), read as the given types:
  /// `let (id, name) = try row.decode((Int64, String).self)`.
  public func decode<each T: StoreDecodable>(_ type: (repeat each T).Type, from first: Int = 0)
    throws -> (repeat each T)
  {
    var index = first
    return (repeat try Self.column((each T).self, of: values, &index))
  }

  /// Column `index` of `values` read as `U`, and `index` moved past it. An `inout` index rather
  /// than a local function's captured one: a captured variable is checked for exclusive access
  /// at run time, at every column of every row a replay reads.
  private static func column<U: StoreDecodable>(
    _ type: U.Type, of values: [StoreValue], _ index: inout Int
  ) throws -> U {
    defer { index += 1 }
    guard index < values.count else {
      throw StoreDecodingError(value: .null, wanted: "column \(index) of \(values.count)")
    }
    return try U(storeValue: values[index])
  }

  /// Column `index` read as `T`.
  public func column<T: StoreDecodable>(_ index: Int, as type: T.Type = T.self) throws -> T {
    try T(storeValue: values[index])
  }
}

/// Which engine a session runs on, for the rare step whose mechanics differ.
public enum StoreEngineKind: Sendable {
  case sqlite, postgres
}

/// What a store operation runs its statements on: one transaction of a write (shared with the
/// writes committed with it), or a read. The operation's body is synchronous on both engines:
/// the embedded store runs it inside its group commit on GRDB's writer, PostgreSQL on a thread
/// of its own that waits for each statement (docs/store.md, §3).
public protocol StoreSession {
  /// The rows `Statement` returns for `values`, bound to `$1`, `$2`, … in order.
  @discardableResult
  func rows<Statement: StoreStatement>(_ statement: Statement.Type, values: [StoreValue]) throws
    -> [StoreRow]
  /// Runs `body` inside a savepoint: if it throws, what it changed is undone and the error
  /// passes on; the rest of the transaction stays.
  func savepoint<T>(_ body: () throws -> T) throws -> T
  /// The engine the session runs on.
  var kind: StoreEngineKind { get }
}

extension StoreSession {
  /// The rows `Statement` returns for `values`.
  @discardableResult
  public func rows<Statement: StoreStatement>(
    _ statement: Statement.Type, _ values: (any StoreEncodable)?...
  ) throws -> [StoreRow] {
    try rows(statement, values: values.map { $0?.storeValue ?? .null })
  }

  /// The first row `Statement` returns for `values`, if any.
  public func row<Statement: StoreStatement>(
    _ statement: Statement.Type, _ values: (any StoreEncodable)?...
  ) throws -> StoreRow? {
    try rows(statement, values: values.map { $0?.storeValue ?? .null }).first
  }

  /// Whether `Statement` returns a row for `values`.
  public func exists<Statement: StoreStatement>(
    _ statement: Statement.Type, _ values: (any StoreEncodable)?...
  ) throws -> Bool {
    try !rows(statement, values: values.map { $0?.storeValue ?? .null }).isEmpty
  }
}

/// An engine the store's operations run on.
public protocol StoreEngine: Sendable {
  /// Runs `body` in a transaction shared with the other writes waiting at the same time, and
  /// returns once it has committed and the change feed has handed its changes on. If `body`
  /// throws, none of its changes remain and the error passes on; the writes committed with it
  /// are not affected. `body` may run more than once (a transaction refused for a concurrent
  /// one runs again), so it must do nothing but its statements.
  ///
  /// `queueingEventsOf`: the players the write appends events for, when known before it starts
  /// (PostgreSQL takes their turns first, so that writes numbering one player's events are
  /// never refused for each other).
  func writeTransaction<T: Sendable>(
    queueingEventsOf players: [Int64],
    _ body: @escaping @Sendable (any StoreSession) throws -> T
  ) async throws -> T

  /// Runs `body` where each statement may see the store as it is when the statement runs (no
  /// single snapshot needed); by default a snapshot.
  func readEach<T: Sendable>(_ body: @escaping @Sendable (any StoreSession) throws -> T)
    async throws -> T

  /// Runs `body` on a snapshot of the store.
  func readSnapshot<T: Sendable>(
    _ body: @escaping @Sendable (any StoreSession) throws -> T
  ) async throws -> T
}

extension StoreEngine {
  /// A snapshot, for an engine that has nothing cheaper.
  public func readEach<T: Sendable>(
    _ body: @escaping @Sendable (any StoreSession) throws -> T
  ) async throws -> T {
    try await readSnapshot(body)
  }

  /// A write that appends no events, or none known before it starts.
  public func writeTransaction<T: Sendable>(
    _ body: @escaping @Sendable (any StoreSession) throws -> T
  ) async throws -> T {
    try await writeTransaction(queueingEventsOf: [], body)
  }
}
