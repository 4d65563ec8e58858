import BadmintonAPI
import BadmintonRPC
import BadmintonServices
import BadmintonStore
import Logging
import NIOCore
import StoreTestSupport
import Synchronization

/// A wall clock tests move by hand.
final class ManualClock: WallClock {
  private let now = Mutex<Int64>(1_800_000_000_000)

  func nowUnixMs() -> Int64 { now.withLock { $0 } }

  func advance(by milliseconds: Int64) { now.withLock { $0 += milliseconds } }
}

/// A server with the player services on an empty store of one kind, on a free port.
struct PlayerWorld {
  let client: RPCClient
  let store: any ServerStore
  let clock: ManualClock
  let port: Int
  let housekeeping: Housekeeping
  /// What the operator console does, on the same services.
  let administration: Administration

  static let administratorPhone = "+8613900000000"
  static let administratorPassword = "correct horse"

  /// A registered and logged-in player.
  struct Player {
    let id: Int64
    let phone: String
    let token: String

    var options: CallOptions { CallOptions(bearerToken: token) }
  }

  private static let counter = Atomic<Int>(0)

  /// A fresh phone number, unique within the test run.
  static func newPhone() -> String {
    "+86138\(String(counter.wrappingAdd(1, ordering: .relaxed).oldValue).leftPadded(8))"
  }

  /// Registers and logs in a player.
  func player(
    phone: String = PlayerWorld.newPhone(), nickname: String = "Player", level: Int32 = 4,
    password: String = "correct horse"
  ) async throws -> Player {
    let registered = try await client.accounts.register(
      RegisterRequest(phone: phone, nickname: nickname, password: password, selfLevel: level))
    let login = try await client.accounts.login(LoginRequest(phone: phone, password: password))
    precondition(login.userID == registered.userID)
    return Player(id: registered.userID, phone: phone, token: login.token)
  }

  /// Runs the hourly housekeeping now.
  func sweep() async throws { try await housekeeping.sweep() }

  /// Logs in the administrator named by the server's configuration.
  func administrator() async throws -> Player {
    let login = try await client.accounts.login(
      LoginRequest(phone: Self.administratorPhone, password: Self.administratorPassword))
    return Player(id: login.userID, phone: Self.administratorPhone, token: login.token)
  }
}

/// Runs `body` against a fresh server with the player services on an empty store of `kind`,
/// whose frame bodies and paged answers are limited to `maximumBodySize` bytes.
func withPlayerWorld<T>(
  _ kind: StoreKind, maximumBodySize: Int = WireConfiguration().maximumBodySize,
  writeKeysPerPlayer: Int = 10_000, recentWriteAnswerBytes: Int = 16 << 20,
  _ body: (PlayerWorld) async throws -> T
) async throws -> T {
  try await withStore(kind) { store in
    let clock = ManualClock()
    // The administrator's account exists before the server names it, as in production.
    let administrator = try await store.createPlayer(
      NewPlayer(
        phone: PlayerWorld.administratorPhone, nickname: "Admin",
        password: try await PasswordHasher(cost: .testing).digest(
          PlayerWorld.administratorPassword),
        selfLevel: 5, locale: "en", joinedAtUnixMs: clock.nowUnixMs()))
    let players = try await PlayerServices.start(
      store: store,
      configuration: PlayerServicesConfiguration(
        passwordCost: .testing, administratorIDs: [administrator.id],
        // Every test player comes from one address; the limits have tests of their own.
        loginPolicyPerPhone: .unlimited, loginPolicyPerAddress: .unlimited,
        registrationsPerAddressPerHour: 0, uploadsPerAddressPerHour: 0,
        maximumResponseBytes: maximumBodySize, writeKeysPerPlayer: writeKeysPerPlayer,
        recentWriteAnswerBytes: recentWriteAnswerBytes),
      clock: clock)
    var logger = Logger(label: "test.server")
    logger.logLevel = .critical
    let server = RPCServer(
      configuration: ServerConfiguration(
        port: 0, wire: WireConfiguration(maximumBodySize: maximumBodySize)),
      services: players.services,
      authenticator: players.authenticator, logger: logger)
    return try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await server.run() }
      let port = try await server.localAddress().port!
      let client = RPCClient(host: "127.0.0.1", port: port)
      let world = PlayerWorld(
        client: client, store: store, clock: clock, port: port,
        housekeeping: players.housekeeping, administration: players.administration)
      do {
        let result = try await body(world)
        await client.close()
        group.cancelAll()
        return result
      } catch {
        await client.close()
        group.cancelAll()
        throw error
      }
    }
  }
}

/// The `RPCError` that `body` threw, or nil.
func rpcError(_ body: () async throws -> Void) async -> RPCError? {
  do {
    try await body()
    return nil
  } catch let error as RPCError {
    return error
  } catch {
    return RPCError(
      code: .unknown, reason: "NOT_AN_RPC_ERROR", message: .init(verbatim: "\(error)"))
  }
}

extension String {
  func leftPadded(_ length: Int) -> String {
    count >= length ? self : String(repeating: "0", count: length - count) + self
  }
}

/// The smallest valid PNG signature plus some bytes, as a certificate scan would start.
let pngDocument: [UInt8] =
  [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 100)
