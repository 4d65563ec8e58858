import BadmintonDomain
import BadmintonServices
import BadmintonStore
import Testing

@Suite("Match board")
struct MatchBoardTests {
  @Test("the match index is rebuilt from the store at start: active availability only")
  func board_rebuiltAtStart() async throws {
    let store = try SQLitePlayerStore.inMemory()
    let clock = ManualClock()
    let now = clock.nowUnixMs()
    var expected: Set<Int64> = []
    var all: [Int64] = []
    for index in 0..<6 {
      let player = try await store.createPlayer(
        NewPlayer(
          phone: PlayerWorld.newPhone(), nickname: "P\(index)",
          password: PasswordDigest(hash: [1], salt: [2], parameters: "scrypt:16:1:1"),
          selfLevel: 4, locale: "en", joinedAtUnixMs: now))
      // Index 0 ended half an hour ago; all others are under way or ahead, and index 1 is
      // cancelled.
      let start = now + Int64(index) * 3_600_000 + 1_800_000 - 3_600_000
      let record = try await store.createAvailability(
        NewAvailability(
          playerID: player.id, mode: .singles, date: .init(year: 2027, month: 1, day: 15),
          startMinute: 0, endMinute: 60, timeZone: "UTC",
          slot: .init(startUnixMs: start - 3_600_000, endUnixMs: start),
          location: .init(latitude: 1, longitude: 2), radiusMiles: 10, skillTolerance: 2,
          postedAtUnixMs: now, source: .posted),
        activeLimit: 10, now: 0
      ) { _ in [] }
      if index == 1 { _ = try await store.cancelAvailability(id: record.id, playerID: player.id) }
      if index >= 2 { expected.insert(record.id) }
      all.append(record.id)
    }
    let services = try await PlayerServices.start(
      store: store, configuration: PlayerServicesConfiguration(passwordCost: .testing),
      clock: clock)
    #expect(services.board.count == expected.count)
    for id in all { #expect(services.board.contains(id) == expected.contains(id)) }
  }
}
