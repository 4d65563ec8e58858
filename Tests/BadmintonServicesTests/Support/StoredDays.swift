import BadmintonDomain
import BadmintonStore

/// How many days of `playerID`'s schedule the store holds in 2027.
func storedDays(_ store: any ScheduleStore, playerID: Int64) async throws -> Int {
  let days = try await store.dayStatuses(
    playerIDs: [playerID], from: LocalDate(year: 2027, month: 1, day: 1),
    through: LocalDate(year: 2027, month: 12, day: 31))
  return days[playerID]?.count ?? 0
}
