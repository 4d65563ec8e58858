import PropertyBased
import Testing

@testable import BadmintonDomain

@Suite("The table from ids to values")
struct IDTableTests {
  /// Ids of every kind the table keeps apart: the store's from 1 up, the ends of pages, the
  /// last paged id and the first past it, negative ids and the extremes.
  static let ids = Generator { rng in
    // The last pages make the table's directory its longest (2 MB), so they come rarely.
    switch Int.random(in: 0..<100, using: &rng) {
    case 0..<60: Int64.random(in: 0..<5_000, using: &rng)
    case 60..<75:
      Int64.random(in: -3...3, using: &rng) * 1_024 + Int64.random(in: -1...1, using: &rng)
    case 75: (1 << 28) + Int64.random(in: -2...1, using: &rng)
    case 76..<80: [Int64.min, Int64.max, -1].randomElement(using: &rng)!
    // Runs 2^28 and more apart, which the window cannot hold at once.
    case 80..<85:
      Int64.random(in: 1...3, using: &rng) << 28 + Int64.random(in: 0..<3_000, using: &rng)
    default: Int64.random(in: Int64.min...Int64.max, using: &rng)
    }
  }

  enum Operation {
    case set(Int64, Int32)
    case remove(Int64)
    case copy
  }

  static let runs = Generator { rng in
    (0..<Int.random(in: 0...400, using: &rng)).map { _ -> Operation in
      let id = ids.run(using: &rng)
      switch Int.random(in: 0..<100, using: &rng) {
      case 0..<55: return .set(id, Int32.random(in: .min ... .max, using: &rng))
      case 55..<99: return .remove(id)
      default: return .copy
      }
    }
  }

  @Test("for any sets, removals and copies the table holds what a dictionary holds")
  func table_matchesADictionary() async {
    await propertyCheck(count: 80, input: Self.runs) { operations in
      check(operations) { $0 }
      // Values with references of their own (strings too long to be kept inline), which the
      // pages must copy, replace and let go of as a dictionary does.
      check(operations) { "a value longer than fifteen bytes: \($0)" }
    }
  }

  private func check<Value: Equatable>(_ operations: [Operation], _ make: (Int32) -> Value) {
    var table = IDTable<Value>()
    var model: [Int64: Value] = [:]
    // Each copy, with what it held when made: later changes to the table must not reach it.
    var copies: [(IDTable<Value>, [Int64: Value])] = []
    for operation in operations {
      switch operation {
      case .set(let id, let value):
        table[id] = make(value)
        model[id] = make(value)
      case .remove(let id):
        table[id] = nil
        model[id] = nil
      case .copy:
        copies.append((table, model))
        table = IDTable(copying: table)
      }
      #expect(table.count == model.count)
    }
    #expect(table.all == model)
    for (id, value) in model { #expect(table[id] == value) }
    for (copy, held) in copies {
      #expect(copy.all == held)
      #expect(copy.count == held.count)
    }
  }

  @Test("ids removed empty their pages: a table emptied holds nothing, and fills again")
  func emptiedTable_isEmpty() {
    let table = IDTable<Int64>()
    for id in Int64(0)..<5_000 { table[id] = id * 3 }
    #expect(table.pagesHeld == 5 && table.directoryLength == 5)
    for id in Int64(0)..<5_000 { table[id] = nil }
    #expect(table.count == 0)
    #expect(table.all.isEmpty)
    #expect(table.pagesHeld == 0 && table.directoryLength == 0)
    for id in Int64(0)..<5_000 { #expect(table[id] == nil) }
    table[4_999] = 1
    table.update(4_999) { $0 += 1 }
    #expect(table[4_999] == 2)
    #expect(table.all == [4_999: 2])
  }

  /// A value that counts how many of its kind are alive.
  final class Tracked {
    let live: LiveCount
    init(_ live: LiveCount) {
      self.live = live
      live.count += 1
    }
    deinit { live.count -= 1 }
  }

  /// The values alive, for one test: its tables are used on one thread.
  final class LiveCount { var count = 0 }

  @Test(
    "a value is let go once: when it is replaced or removed, or when its table goes; a copy holds it too"
  )
  func values_areLetGoOnce() {
    let live = LiveCount()
    do {
      let table = IDTable<Tracked>()
      // Three pages, and ids kept beside the pages.
      let ids = Array(Int64(0)..<3_000) + [-5, -1, Int64.max]
      for id in ids { table[id] = Tracked(live) }
      #expect(live.count == ids.count)
      for id in ids where id % 3 == 0 { table[id] = Tracked(live) }
      #expect(live.count == ids.count)
      for id in ids where id % 5 == 0 { table[id] = nil }
      #expect(live.count == table.count)
      do {
        // The copy holds the same values, each once more.
        let copy = IDTable(copying: table)
        #expect(live.count == table.count && copy.count == table.count)
        for id in ids where id % 7 == 0 { table[id] = nil }
        // What the table let go of, the copy still holds.
        #expect(live.count == copy.count)
        #expect(ids.allSatisfy { (copy[$0] != nil) == ($0 % 5 != 0) })
      }
      #expect(live.count == table.count)
      // A page emptied by removals is freed holding none.
      for id in Int64(0)..<1_024 { table[id] = nil }
      #expect(live.count == table.count)
    }
    #expect(live.count == 0)
  }

  @Test("ids that only grow stay paged: the window follows the ids in use past 2^28 and beyond")
  func growingIDs_stayPaged() {
    let table = IDTable<Int32>()
    // A few live ids at a time, each new one far above the last, the oldest let go: the span
    // in use stays small, the ids pass 2^28 many times over.
    var live: [Int64] = []
    var id: Int64 = 1
    for step in 0..<4_000 {
      table[id] = Int32(step)
      live.append(id)
      if live.count > 3 { table[live.removeFirst()] = nil }
      id += 1 << 20 + Int64(step % 7)
    }
    #expect(id > 1 << 31)
    #expect(table.unpaged == 0)
    #expect(table.pagesHeld == 3)
    // The directory spans the live ids' pages, not every id since 1.
    #expect(table.directoryLength <= (Int(live.last! - live.first!) >> 10) + 1)
    #expect(table.all == Dictionary(uniqueKeysWithValues: live.map { ($0, table[$0]!) }))
    #expect(table.count == 3)
  }
}
