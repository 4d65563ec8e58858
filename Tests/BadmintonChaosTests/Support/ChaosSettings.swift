import ChaosSupport
import Foundation

/// How big a chaos run is and how hard the proxy hits it, from the environment:
///
/// | variable | default | meaning |
/// | --- | --- | --- |
/// | `BADMINTON_CHAOS_OPERATIONS` | 10000 | operations of the workload, writes and reads |
/// | `BADMINTON_CHAOS_KILLS` | 5 | SIGKILLs of the server during the workload, each followed by a restart |
/// | `BADMINTON_CHAOS_APP_RESTARTS` | 2 | app restarts of each device: the session closed with writes queued, then opened again on the same files |
/// | `BADMINTON_CHAOS_SEED` | 27 | seed of the workload and of the proxy's faults |
/// | `BADMINTON_CHAOS_PLAYERS` | 6 | players (2 to 16; raised so that no player passes the server's 10,000 keyed writes a day); the first two have a second device (session) |
/// | `BADMINTON_CHAOS_FAULT_RATE` | 1 | share of connections the proxy ends with a fault (a cut, a dropped answer, a refusal) |
/// | `BADMINTON_CHAOS_STALL_SECONDS` | 120 | a run in which no operation finishes for this long stops and fails, saying what each device waits for |
/// | `BADMINTON_CHAOS_STORE` | sqlite | `postgresql` serves from a database of the tests' PostgreSQL cluster (`PostgresTestCluster`) |
/// | `BADMINTON_CHAOS_REPORT` | none | a file the figures are written to, as JSON |
/// | `BADMINTON_CHAOS_DIR` | the temporary folder | where the run's data folder and queues go |
struct ChaosSettings: Sendable {
  var operations = 10_000
  var kills = 5
  var appRestarts = 2
  var seed: UInt64 = 27
  var players = 6
  /// Players with a second device: the first ones.
  var secondDevices = 2
  var faultRate = 1.0
  var stallSeconds = 120
  var postgres = false
  var report: String?
  var directory: URL = FileManager.default.temporaryDirectory

  /// The settings the environment gives, the defaults for the rest.
  static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
    -> ChaosSettings
  {
    var settings = ChaosSettings()
    if let value = environment["BADMINTON_CHAOS_OPERATIONS"].flatMap(Int.init), value > 0 {
      settings.operations = value
    }
    if let value = environment["BADMINTON_CHAOS_KILLS"].flatMap(Int.init), value >= 0 {
      settings.kills = value
    }
    if let value = environment["BADMINTON_CHAOS_APP_RESTARTS"].flatMap(Int.init), value >= 0 {
      settings.appRestarts = value
    }
    if let value = environment["BADMINTON_CHAOS_SEED"].flatMap({ UInt64($0) }) {
      settings.seed = value
    }
    if let value = environment["BADMINTON_CHAOS_PLAYERS"].flatMap(Int.init),
      (2...16).contains(value)
    {
      settings.players = value
      settings.secondDevices = min(settings.secondDevices, value)
    }
    settings.players = max(settings.players, settings.playersNeeded)
    if let value = environment["BADMINTON_CHAOS_FAULT_RATE"].flatMap(Double.init),
      (0...1).contains(value)
    {
      settings.faultRate = value
    }
    if let value = environment["BADMINTON_CHAOS_STALL_SECONDS"].flatMap(Int.init), value > 0 {
      settings.stallSeconds = value
    }
    settings.postgres = environment["BADMINTON_CHAOS_STORE"] == "postgresql"
    settings.report = environment["BADMINTON_CHAOS_REPORT"]
    if let value = environment["BADMINTON_CHAOS_DIR"] {
      settings.directory = URL(fileURLWithPath: value)
    }
    return settings
  }

  /// The server holds at most 10,000 idempotency keys per player a day and refuses more writes
  /// until the oldest expire (`IDEMPOTENCY_KEYS_EXHAUSTED`): enough players that none with two
  /// devices makes more than 8,000 writes (at most 9 in 10 operations are writes).
  var playersNeeded: Int {
    var players = 2
    while true {
      let devices = players + min(secondDevices, players)
      if operations * 9 / 10 * 2 / devices <= 8_000 || players == 16 { return players }
      players += 1
    }
  }

  /// The proxy's plan: `faultRate` of the connections ended by a fault, shared among the
  /// kinds, inside one of the first 60 frames of its direction; a fifth of them delayed too.
  var plan: ChaosPlan {
    ChaosPlan(
      cutRequest: faultRate * 0.3, cutAnswer: faultRate * 0.25, dropAnswer: faultRate * 0.35,
      refuse: faultRate * 0.1, delay: 0.2, faultFrame: 1...60, delayMilliseconds: 1...10,
      refusalRun: 1...3)
  }
}
