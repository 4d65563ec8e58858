import GRDB

/// The store checked against what the clients were told, after the run: read-only, from the
/// server's SQLite file once the server has stopped.
struct ChaosAudit: Codable, Sendable {
  /// Writes told they succeeded that the store holds more than once, by kind.
  var duplicates: [String: Int] = [:]
  /// Writes told they succeeded whose effect the store does not hold, by kind.
  var losses: [String: Int] = [:]
  /// Writes told they were refused whose effect the store holds anyway, by kind.
  var storedThoughRefused: [String: Int] = [:]
  /// Events delivered to the sessions, all devices together.
  var eventsDelivered = 0
  /// Events in the store, all players together.
  var eventsStored = 0
  /// Events a session delivered more than once.
  var eventDuplicates = 0
  /// Events a session delivered after a later one.
  var eventsOutOfOrder = 0
  /// Stored events a session never delivered.
  var eventsMissed = 0
  /// Delivered sequences the store does not hold, and holes in a player's stored sequences.
  var eventsUnknown = 0
  /// The first problems found, described.
  var problems: [String] = []

  var totalDuplicates: Int { duplicates.values.reduce(0, +) + eventDuplicates }
  var totalLosses: Int { losses.values.reduce(0, +) + eventsMissed }

  private mutating func note(_ problem: String) {
    if problems.count < 30 { problems.append(problem) }
  }

  /// Each player's last event sequence in the store at `path`.
  static func lastSequences(path: String) throws -> [Int64: UInt64] {
    var configuration = Configuration()
    configuration.readonly = true
    let database = try DatabaseQueue(path: path, configuration: configuration)
    defer { try? database.close() }
    return try database.read { db in
      var last: [Int64: UInt64] = [:]
      for row in try Row.fetchAll(
        db, sql: "SELECT player_id, MAX(sequence) FROM event GROUP BY player_id")
      {
        last[row[0]] = row[1]
      }
      return last
    }
  }

  /// Audits the store at `path` against `ledger`, the pairs' final states in `world`, and the
  /// sequences each device delivered (by player).
  static func run(
    path: String, ledger: ChaosLedger.State, pairs: [ChaosWorld.Pair: ChaosWorld.PairState],
    delivered: [(player: Int64, device: Int, sequences: [UInt64])]
  ) throws -> ChaosAudit {
    var configuration = Configuration()
    configuration.readonly = true
    let database = try DatabaseQueue(path: path, configuration: configuration)
    defer { try? database.close() }
    var audit = ChaosAudit()
    try database.read { db in
      try audit.availability(db, ledger)
      try audit.messages(db, ledger)
      try audit.friends(db, ledger, pairs: pairs)
      try audit.days(db, ledger)
      try audit.events(db, delivered)
    }
    return audit
  }

  /// Each post's slot is its own: one row per slot told it succeeded, with the id told, and
  /// none for a post told it was refused. A cancellation told it succeeded left its row
  /// cancelled.
  private mutating func availability(_ db: Database, _ ledger: ChaosLedger.State) throws {
    struct Slot: Hashable {
      var player: Int64
      var date: String
      var start: Int32
      var end: Int32
    }
    var bySlot: [Slot: [Int64]] = [:]
    var states: [Int64: Int] = [:]
    for row in try Row.fetchAll(
      db, sql: "SELECT id, player_id, local_date, start_minute, end_minute, state FROM availability"
    ) {
      bySlot[Slot(player: row[1], date: row[2], start: row[3], end: row[4]), default: []].append(
        row[0])
      states[row[0]] = row[5]
    }
    for post in ledger.posts {
      let rows =
        bySlot[Slot(player: post.player, date: post.date, start: post.start, end: post.end)]
        ?? []
      switch post.answer {
      case .succeeded(let id):
        if rows.count > 1 {
          duplicates["PostAvailability", default: 0] += rows.count - 1
          note(
            "PostAvailability \(post.date) \(post.start)-\(post.end) of \(post.player): \(rows.count) rows \(rows)"
          )
        }
        if !rows.contains(id) {
          losses["PostAvailability", default: 0] += 1
          note("PostAvailability \(id) of \(post.player) told stored, not in the store")
        }
      case .refused(let reason):
        if !rows.isEmpty {
          storedThoughRefused["PostAvailability", default: 0] += 1
          duplicates["PostAvailability", default: 0] += rows.count - 1
          note("PostAvailability of \(post.player) refused (\(reason)) but stored: \(rows)")
        }
      }
    }
    for cancel in ledger.cancels {
      let cancelled = states[cancel.availability] == 2
      switch cancel.answer {
      case .succeeded:
        if !cancelled {
          losses["CancelAvailability", default: 0] += 1
          note(
            "CancelAvailability \(cancel.availability) told done, state \(states[cancel.availability] ?? -1)"
          )
        }
      case .refused(let reason):
        if cancelled {
          storedThoughRefused["CancelAvailability", default: 0] += 1
          note("CancelAvailability \(cancel.availability) refused (\(reason)) but cancelled")
        }
      }
    }
  }

  /// One message row per text told sent, with the id told; none for a text refused.
  private mutating func messages(_ db: Database, _ ledger: ChaosLedger.State) throws {
    var byText: [String: [Int64]] = [:]
    for row in try Row.fetchAll(db, sql: "SELECT id, text FROM direct_message") {
      byText[row[1], default: []].append(row[0])
    }
    for message in ledger.messages {
      let rows = byText[message.text] ?? []
      switch message.answer {
      case .succeeded(let id):
        if rows.count > 1 {
          duplicates["SendMessage", default: 0] += rows.count - 1
          note("SendMessage \"\(message.text)\": \(rows.count) rows")
        }
        if !rows.contains(id) {
          losses["SendMessage", default: 0] += 1
          note("SendMessage \"\(message.text)\" told stored as \(id), not in the store")
        }
      case .refused(let reason):
        if !rows.isEmpty {
          storedThoughRefused["SendMessage", default: 0] += 1
          note("SendMessage \"\(message.text)\" refused (\(reason)) but stored")
        }
      }
    }
  }

  /// Friend requests: as many rows from one player to another as requests told sent, each id
  /// told among them; each acceptance told done left its request accepted; and at the end two
  /// players are friends exactly when the workload's last answer for them says so.
  private mutating func friends(
    _ db: Database, _ ledger: ChaosLedger.State,
    pairs: [ChaosWorld.Pair: ChaosWorld.PairState]
  ) throws {
    struct Direction: Hashable {
      var sender: Int64
      var recipient: Int64
    }
    var rows: [Direction: [Int64]] = [:]
    var states: [Int64: Int] = [:]
    for row in try Row.fetchAll(
      db, sql: "SELECT id, sender_id, recipient_id, state FROM friend_request")
    {
      rows[Direction(sender: row[1], recipient: row[2]), default: []].append(row[0])
      states[row[0]] = row[3]
    }
    var told: [Direction: (succeeded: [Int64], refused: Int)] = [:]
    for request in ledger.friendRequests {
      let direction = Direction(sender: request.sender, recipient: request.recipient)
      switch request.answer {
      case .succeeded(let id): told[direction, default: ([], 0)].succeeded.append(id)
      case .refused: told[direction, default: ([], 0)].refused += 1
      }
    }
    for (direction, answers) in told {
      let stored = rows[direction] ?? []
      for id in answers.succeeded where !stored.contains(id) {
        losses["SendFriendRequest", default: 0] += 1
        note("SendFriendRequest \(id) \(direction.sender)->\(direction.recipient) not in the store")
      }
      let extra = stored.count - answers.succeeded.count
      if extra > 0 {
        let refusedStored = min(extra, answers.refused)
        storedThoughRefused["SendFriendRequest", default: 0] += refusedStored
        duplicates["SendFriendRequest", default: 0] += extra - refusedStored
        note(
          "SendFriendRequest \(direction.sender)->\(direction.recipient): \(stored.count) rows, \(answers.succeeded.count) told sent, \(answers.refused) told refused"
        )
      }
    }
    for accept in ledger.accepts {
      guard case .succeeded = accept.answer else { continue }
      if states[accept.request] != 2 {
        losses["AcceptFriendRequest", default: 0] += 1
        note(
          "AcceptFriendRequest \(accept.request) told done, state \(states[accept.request] ?? -1)")
      }
    }
    var friendships = Set<[Int64]>()
    for row in try Row.fetchAll(db, sql: "SELECT player_id, friend_id FROM friendship") {
      friendships.insert([row[0], row[1]])
    }
    for (pair, state) in pairs {
      let both =
        friendships.contains([pair.low, pair.high])
        && friendships.contains([pair.high, pair.low])
      let either =
        friendships.contains([pair.low, pair.high])
        || friendships.contains([pair.high, pair.low])
      switch state {
      case .friends where !both:
        losses["AcceptFriendRequest", default: 0] += 1
        note("\(pair.low) and \(pair.high) told friends, not in the store")
      case .strangers where either, .requested where either:
        losses["RemoveFriend", default: 0] += 1
        note("\(pair.low) and \(pair.high) told no longer friends, friends in the store")
      default: break
      }
    }
  }

  /// Each day holds the note of the last update told it succeeded.
  private mutating func days(_ db: Database, _ ledger: ChaosLedger.State) throws {
    var notes: [[String]: String] = [:]
    for row in try Row.fetchAll(db, sql: "SELECT player_id, date, note FROM day_status") {
      notes[[String(row[0] as Int64), row[1]]] = row[2]
    }
    var last: [[String]: String] = [:]
    for day in ledger.dayStatuses {
      if case .succeeded = day.answer { last[[String(day.player), day.date]] = day.note }
    }
    for (day, note) in last where notes[day] != note {
      losses["UpdateDayStatus", default: 0] += 1
      self.note("UpdateDayStatus \(day): told \"\(note)\", stored \"\(notes[day] ?? "nothing")\"")
    }
  }

  /// Every device delivered its player's stored events, each once, in sequence order.
  private mutating func events(
    _ db: Database, _ delivered: [(player: Int64, device: Int, sequences: [UInt64])]
  ) throws {
    var stored: [Int64: [UInt64]] = [:]
    for row in try Row.fetchAll(
      db, sql: "SELECT player_id, sequence FROM event ORDER BY player_id, sequence")
    {
      stored[row[0], default: []].append(row[1])
    }
    eventsStored = stored.values.map(\.count).reduce(0, +)
    for (player, sequences) in stored where sequences != Array(1...UInt64(sequences.count)) {
      eventsUnknown += 1
      note("player \(player)'s stored sequences are not 1...\(sequences.count)")
    }
    for (player, device, sequences) in delivered {
      eventsDelivered += sequences.count
      let expected = stored[player] ?? []
      let seen = Set(sequences)
      eventDuplicates += sequences.count - seen.count
      eventsOutOfOrder += zip(sequences, sequences.dropFirst()).filter { $0.0 >= $0.1 }.count
      let missed = Set(expected).subtracting(seen)
      eventsMissed += missed.count
      eventsUnknown += seen.subtracting(expected).count
      if sequences != expected {
        note(
          "device \(device) of \(player): delivered \(sequences.count) events (last \(sequences.last ?? 0)), stored \(expected.count); missed \(missed.sorted().prefix(10))"
        )
      }
    }
  }
}
