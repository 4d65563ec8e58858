import ArgumentParser
import BadmintonConsole
import BadmintonMetrics
import BadmintonPostgres
import BadmintonRPC
import BadmintonSQLite
import BadmintonServices
import BadmintonStore
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// `badminton-server`: serves the BadmintonBuddy RPC API until SIGINT or SIGTERM, then drains.
@main
struct BadmintonServerCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "badminton-server",
    abstract: "Serves the BadmintonBuddy RPC API (see docs/protocol.md).")

  @Option(help: "Address to listen on.")
  var host = "127.0.0.1"

  @Option(help: "Port to listen on; 0 picks a free port and prints it.")
  var port = 7420

  @Option(help: "Folder for the server's data; created when missing.")
  var dataDir = "./data"

  @Option(
    help: ArgumentHelp(
      "PostgreSQL database to serve from instead of SQLite in --data-dir, so that several instances share it: postgresql://USER[:PASSWORD]@HOST[:PORT]/DB, or with ?host=/socket/folder for a Unix socket.",
      valueName: "url"))
  var database: String?

  @Option(help: "Connections to the PostgreSQL database at most (with --database); at least 3.")
  var databasePoolSize = 16

  @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
  var logLevel: String = "info"

  @Option(
    help:
      "Largest frame body in bytes, compressed or not; requests are further held to what methods take."
  )
  var maxFrameBytes = WireConfiguration().maximumBodySize

  @Option(help: "Calls one connection may have open at once.")
  var maxConcurrentCalls = 128

  @Option(help: "Seconds without a frame before a connection is closed.")
  var idleTimeoutSeconds = 300

  @Option(help: "Seconds that calls in flight get to finish on shutdown.")
  var shutdownGraceSeconds = 10

  @Option(help: "Request bytes that the open calls of all connections may hold together.")
  var maxRequestBytesInFlight = 256 << 20

  @Option(help: "Seconds a frame may take to arrive whole once its first byte is in.")
  var frameTimeoutSeconds = 60

  @Option(
    help:
      "Connections open at once; more are refused (TOO_MANY_CONNECTIONS). Default: 10000, or the open-files limit less 256 when lower."
  )
  var maxConnections: Int?

  @Option(
    help:
      "Connections one client IP address may hold open; more are refused (TOO_MANY_CONNECTIONS_FROM_ADDRESS)."
  )
  var maxConnectionsPerAddress = 128

  @Option(
    help:
      "Request frames over 16 KiB that all connections may hold at once; a connection whose next one finds none free is not read until one is. Default: one per core, at least 2."
  )
  var maxLargeRequestFrames: Int?

  @Option(
    name: .customLong("admin-id"),
    help:
      "Id of a registered player who may review verifications (Register returns it); repeat for several."
  )
  var administratorIDs: [Int64] = []

  @Option(help: "Days a login session lasts.")
  var sessionDays = 30

  @Option(help: "scrypt cost for new password digests: log2 of N (10-20).")
  var scryptLogN = 15

  @Option(help: "Password hashes that may run at once (default: one per core).")
  var passwordHashSlots = ProcessInfo.processInfo.activeProcessorCount

  @Option(help: "Password hashes that may wait for a slot; more are refused (default: 4 per slot).")
  var passwordHashWaiting: Int?

  @Option(help: "Registrations one client address may make per hour; 0 for no limit.")
  var registrationsPerAddressPerHour = 10

  @Option(help: "Verification uploads one client address may make per hour; 0 for no limit.")
  var uploadsPerAddressPerHour = 20

  @Option(
    help: "Bytes that unfinished verification uploads may hold on disk together, as received.")
  var maxOpenUploadBytes: Int64 = 1 << 30

  @Option(
    help:
      "Port for Prometheus metrics (HTTP GET /metrics); off unless given. 0 picks a free port and prints it."
  )
  var metricsPort: Int?

  @Option(
    help:
      "Address the metrics endpoint listens on. Keep it private: loopback, or an internal network only the scraper reaches."
  )
  var metricsHost = "127.0.0.1"

  @Option(
    help:
      "Port of the operator console (docs/console.md): HTTP, or HTTPS with the TLS options; off unless given. 0 picks a free port and prints it. Needs --admin-id."
  )
  var consolePort: Int?

  @Option(
    help:
      "Address the operator console listens on. Keep it private: loopback, or a network only operators reach."
  )
  var consoleHost = "127.0.0.1"

  @Option(help: "Minutes without a request after which an operator console session ends.")
  var consoleIdleMinutes = 30

  @Option(
    help:
      "Connections the operator console holds at once; past it a newcomer from an address holding at least two fewer than the busiest takes one of that address's places, others are closed (docs/console.md)."
  )
  var consoleConnections = 512

  @Option(
    help:
      "Connections the operator console holds at once from one client address (an IPv6 /64 counts as one); behind an SSH tunnel every operator comes from 127.0.0.1."
  )
  var consoleConnectionsPerAddress = 16

  @Option(
    help: ArgumentHelp(
      "PEM file of the TLS certificate chain, the server's certificate first; with --tls-private-key, serves TLS instead of plain TCP.",
      valueName: "file"))
  var tlsCertificateChain: String?

  @Option(
    help: ArgumentHelp(
      "PEM file of the private key of the TLS certificate (readable by the server's user only).",
      valueName: "file"))
  var tlsPrivateKey: String?

  @Option(help: "Seconds a new TLS connection may take to complete its handshake.")
  var tlsHandshakeTimeoutSeconds = 10

  func validate() throws {
    guard (tlsCertificateChain == nil) == (tlsPrivateKey == nil) else {
      throw ValidationError("--tls-certificate-chain and --tls-private-key go together")
    }
    guard tlsHandshakeTimeoutSeconds >= 1 else {
      throw ValidationError("--tls-handshake-timeout-seconds must be at least 1")
    }
    guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
    if let metricsPort, !(0...65535).contains(metricsPort) {
      throw ValidationError("--metrics-port must be 0...65535")
    }
    guard Logger.Level(rawValue: logLevel) != nil else {
      throw ValidationError(
        "--log-level must be one of trace, debug, info, notice, warning, error, critical")
    }
    guard maxFrameBytes >= ResponseBudget.minimumBodySize else {
      throw ValidationError(
        "--max-frame-bytes must be at least \(ResponseBudget.minimumBodySize) (a page of messages)")
    }
    guard maxConcurrentCalls >= 1 else {
      throw ValidationError("--max-concurrent-calls must be at least 1")
    }
    guard idleTimeoutSeconds >= 1 else {
      throw ValidationError("--idle-timeout-seconds must be at least 1")
    }
    guard shutdownGraceSeconds >= 0 else {
      throw ValidationError("--shutdown-grace-seconds must be 0 or more")
    }
    guard maxRequestBytesInFlight >= maxFrameBytes else {
      throw ValidationError("--max-request-bytes-in-flight must be at least --max-frame-bytes")
    }
    guard frameTimeoutSeconds >= 1 else {
      throw ValidationError("--frame-timeout-seconds must be at least 1")
    }
    guard sessionDays >= 1 else { throw ValidationError("--session-days must be at least 1") }
    guard (10...20).contains(scryptLogN) else {
      throw ValidationError("--scrypt-log-n must be 10...20")
    }
    if let maxConnections, maxConnections < 1 {
      throw ValidationError("--max-connections must be at least 1")
    }
    guard maxConnectionsPerAddress >= 1 else {
      throw ValidationError("--max-connections-per-address must be at least 1")
    }
    if let maxLargeRequestFrames, maxLargeRequestFrames < 1 {
      throw ValidationError("--max-large-request-frames must be at least 1")
    }
    guard passwordHashSlots >= 1 else {
      throw ValidationError("--password-hash-slots must be at least 1")
    }
    guard (passwordHashWaiting ?? 0) >= 0 else {
      throw ValidationError("--password-hash-waiting must be 0 or more")
    }
    guard registrationsPerAddressPerHour >= 0, uploadsPerAddressPerHour >= 0 else {
      throw ValidationError(
        "--registrations-per-address-per-hour and --uploads-per-address-per-hour must be 0 or more")
    }
    guard maxOpenUploadBytes >= 5 << 20 else {
      throw ValidationError("--max-open-upload-bytes must be at least 5242880 (one 5 MiB document)")
    }
    guard databasePoolSize >= 3 else {
      throw ValidationError(
        "--database-pool-size must be at least 3 (two follow the database's changes)")
    }
    if let consolePort {
      guard (0...65535).contains(consolePort) else {
        throw ValidationError("--console-port must be 0...65535")
      }
      guard !administratorIDs.isEmpty else {
        throw ValidationError(
          "--console-port needs an administrator to sign in: name one with --admin-id")
      }
      // Passwords and session cookies never cross a network in plain text.
      guard tlsCertificateChain != nil || Self.isLoopback(consoleHost) else {
        throw ValidationError(
          "--console-host \(consoleHost) is not a loopback address: serve the console with TLS (--tls-certificate-chain and --tls-private-key), or keep it on 127.0.0.1 and reach it through an SSH tunnel"
        )
      }
    }
    guard (1...1440).contains(consoleIdleMinutes) else {
      throw ValidationError("--console-idle-minutes must be 1...1440")
    }
    guard (1...100_000).contains(consoleConnections) else {
      throw ValidationError("--console-connections must be 1...100000")
    }
    guard (1...consoleConnections).contains(consoleConnectionsPerAddress) else {
      throw ValidationError("--console-connections-per-address must be 1...--console-connections")
    }
    for id in administratorIDs where id < 1 {
      throw ValidationError("--admin-id \(id) is not a player id: ids start at 1")
    }
  }

  /// Whether `host` names this machine only: `localhost`, 127.0.0.0/8 or ::1.
  static func isLoopback(_ host: String) -> Bool {
    host == "localhost" || host == "::1" || host.hasPrefix("127.")
  }

  func run() async throws {
    let level = Logger.Level(rawValue: logLevel) ?? .info
    LoggingSystem.bootstrap { label in
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    }
    let logger = Logger(label: "badminton.server")
    // Before the store, services and server make their metrics. The console's live page reads
    // the last five minutes of them.
    let recent = consolePort.map { _ in
      RecentMetrics(nowMs: { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) })
    }
    let metrics =
      metricsPort != nil || recent != nil
      ? MetricsBootstrap(prometheus: metricsPort != nil, recent: recent) : nil

    // A certificate or key that cannot be used stops the server before anything else starts.
    let tls = try tlsConfiguration()
    if let tls {
      logger.info(
        "serving TLS",
        metadata: [
          "certificate-chain": "\(tls.certificateChainFile)",
          "private-key": "\(tls.privateKeyFile)",
          "handshake-timeout": "\(tls.handshakeTimeout)",
        ])
    } else {
      logger.info("serving plain TCP without TLS (for loopback and development)")
    }
    let connections = Self.connectionCap(requested: maxConnections, logger: logger)

    let store = try await openStore(metrics: metrics, logger: logger)
    let players: PlayerServices
    do {
      players = try await PlayerServices.start(
        store: store.served,
        configuration: PlayerServicesConfiguration(
          sessionLifetime: .seconds(sessionDays * 24 * 3600),
          passwordCost: PasswordHasher.Cost(rounds: 1 << scryptLogN, blockSize: 8, parallelism: 1),
          administratorIDs: Set(administratorIDs), passwordHashSlots: passwordHashSlots,
          passwordHashWaiting: passwordHashWaiting,
          registrationsPerAddressPerHour: registrationsPerAddressPerHour,
          uploadsPerAddressPerHour: uploadsPerAddressPerHour,
          openUploadBytes: maxOpenUploadBytes, maximumResponseBytes: maxFrameBytes))
    } catch {
      await store.close()
      throw error
    }
    Self.warnOfSuspendedAdministrators(
      Set(administratorIDs), administration: players.administration, logger: logger)

    let configuration = ServerConfiguration(
      host: host, port: port,
      wire: WireConfiguration(maximumBodySize: maxFrameBytes),
      maximumConcurrentCallsPerConnection: maxConcurrentCalls,
      idleTimeout: .seconds(idleTimeoutSeconds),
      shutdownGracePeriod: .seconds(shutdownGraceSeconds),
      maximumRequestBytesInFlight: maxRequestBytesInFlight,
      maximumConnections: connections,
      maximumConnectionsPerAddress: maxConnectionsPerAddress,
      frameTimeout: .seconds(frameTimeoutSeconds),
      maximumLargeRequestFrames: maxLargeRequestFrames
        ?? ServerConfiguration.defaultMaximumLargeRequestFrames,
      tls: tls)
    let server = RPCServer(
      configuration: configuration,
      services: players.services,
      authenticator: players.authenticator,
      logger: logger)

    let endpoint = metricsPort.flatMap { port in
      metrics?.endpoint(host: metricsHost, port: port, players: players, logger: logger)
    }
    let (consolePorts, consolePortFound) = AsyncStream.makeStream(of: Int.self)
    var console: ConsoleServer?
    if let consolePort, let recent {
      // Templates missing beside the executable stop the server here, with a message naming
      // the folders looked in.
      do {
        console = try await ConsoleServer(
          backend: ServedConsole(
            administration: players.administration, recent: recent, board: players.board,
            index: players.index),
          configuration: ConsoleConfiguration(
            host: consoleHost, port: consolePort, tls: tls?.configuration,
            sessionIdleTimeoutMs: Int64(consoleIdleMinutes) * 60_000,
            maximumConnections: consoleConnections,
            maximumConnectionsPerAddress: consoleConnectionsPerAddress,
            // Counted per client as the RPC port counts them: an IPv6 /64 as one address.
            clientAddressKey: { clientAddressKey($0) }),
          logger: Logger(label: "badminton.console"),
          onServerRunning: { port in
            consolePortFound.yield(port)
            consolePortFound.finish()
          })
      } catch {
        await store.close()
        throw error
      }
    }
    let group = ServiceGroup(
      configuration: ServiceGroupConfiguration(
        services: [
          .init(service: server),
          .init(service: players.housekeeping),
        ] + (endpoint.map { [.init(service: $0)] } ?? [])
          + (console.map { [.init(service: $0)] } ?? []),
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger))

    logger.info(
      "frame limits",
      metadata: [
        "max-frame-bytes": "\(maxFrameBytes)",
        "request-frame-bytes": "\(server.maximumRequestBodySize)",
      ])
    do {
      try await serve(
        group: group, server: server, endpoint: endpoint,
        consolePort: console == nil ? nil : consolePorts)
    } catch {
      await store.close()
      throw error
    }
    await store.close()
  }

  /// Runs `group` until it stops, printing the bound ports once the server listens.
  private func serve(
    group: ServiceGroup, server: RPCServer, endpoint: MetricsEndpoint?,
    consolePort: AsyncStream<Int>?
  ) async throws {
    try await withThrowingTaskGroup(of: Void.self) { tasks in
      tasks.addTask { try await group.run() }
      tasks.addTask {
        let address = try await server.localAddress()
        // The one line on standard output: scripts read the bound port from it.
        let line =
          "badminton-server listening on \(address.ipAddress ?? host):\(address.port ?? port)\n"
        FileHandle.standardOutput.write(Data(line.utf8))
        if let endpoint {
          // Then, with metrics on, a second line with the metrics endpoint's port.
          let bound = try await endpoint.localAddress()
          let metricsAddress = "\(bound.ipAddress ?? metricsHost):\(bound.port ?? 0)"
          FileHandle.standardOutput.write(
            Data("badminton-server metrics on \(metricsAddress)\n".utf8))
        }
        if let consolePort, let port = await consolePort.first(where: { _ in true }) {
          // Then, with the console on, a line with its port.
          FileHandle.standardOutput.write(
            Data("badminton-server console on \(consoleHost):\(port)\n".utf8))
        }
      }
      try await tasks.waitForAll()
    }
  }

  /// The store the server serves from: SQLite in `--data-dir`, or with `--database` the shared
  /// PostgreSQL database. A database that cannot be opened stops the server with a message
  /// naming the problem (the URL shown without its password).
  private func openStore(metrics: MetricsBootstrap?, logger: Logger) async throws -> ServedStore {
    guard let database else {
      try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
      let store = try SQLitePlayerStore.open(directory: dataDir)
      metrics?.observe(store)
      logger.info("serving from SQLite", metadata: ["data-dir": "\(dataDir)"])
      return .sqlite(store)
    }
    let shown = DatabaseURL.redacted(database)
    let store: PostgresStore
    do {
      let postgresLogger = Logger(label: "badminton.postgres")
      try await PostgresStore.checkReachable(url: database, logger: postgresLogger)
      store = try await PostgresStore.open(
        .init(url: database, poolSize: databasePoolSize), logger: postgresLogger)
    } catch {
      let problem = PostgresStore.describe(openError: error)
      FileHandle.standardError.write(
        Data("badminton-server: cannot open the database \(shown): \(problem)\n".utf8))
      throw ExitCode.failure
    }
    metrics?.observe(store)
    logger.info(
      "serving from PostgreSQL",
      metadata: ["database": "\(shown)", "pool-size": "\(databasePoolSize)"])
    return .postgresql(store)
  }

  /// The TLS configuration from `--tls-certificate-chain` and `--tls-private-key`, nil without
  /// them; a file that cannot be used is a start-up error naming it.
  private func tlsConfiguration() throws -> ServerTLSConfiguration? {
    guard let tlsCertificateChain, let tlsPrivateKey else { return nil }
    do {
      return try ServerTLSConfiguration(
        certificateChainFile: tlsCertificateChain, privateKeyFile: tlsPrivateKey,
        handshakeTimeout: .seconds(tlsHandshakeTimeoutSeconds))
    } catch {
      FileHandle.standardError.write(Data("badminton-server: cannot serve TLS: \(error)\n".utf8))
      throw ExitCode.failure
    }
  }

  /// Logs a warning for each of `ids` whose suspension holds now (the suspensions loaded from
  /// the store): such an administrator cannot sign in to the console, which would otherwise
  /// only answer them as it answers a wrong password.
  private static func warnOfSuspendedAdministrators(
    _ ids: Set<Int64>, administration: Administration, logger: Logger
  ) {
    let now = administration.nowUnixMs()
    for id in ids.sorted() {
      guard let until = administration.suspendedUntil(id, nowUnixMs: now) else { continue }
      let shown = ISO8601DateFormatter().string(
        from: Date(timeIntervalSince1970: Double(until) / 1000))
      logger.warning(
        "administrator \(id) is suspended until \(shown): they cannot sign in to the console until the suspension ends or another administrator lifts it",
        metadata: ["administrator": "\(id)", "suspended-until": "\(shown)"])
    }
  }

  /// Raises the open-files limit as far as it goes, logs it, and returns the connection cap:
  /// `requested`, or by default 10,000 or what fits under the limit when that is lower. A
  /// requested cap past the limit is kept, with a warning: accepts then pause when descriptors
  /// run out.
  private static func connectionCap(requested: Int?, logger: Logger) -> Int {
    let standard = ServerConfiguration().maximumConnections
    guard let (before, after) = OpenFilesLimit.raise() else {
      logger.warning("cannot read the open-files limit")
      return requested ?? standard
    }
    let capacity = after.connectionCapacity
    let cap = requested ?? min(standard, capacity)
    logger.info(
      "open-files limit",
      metadata: [
        "soft": "\(after.soft)", "hard": "\(after.hard)", "soft-at-start": "\(before.soft)",
        "max-connections": "\(cap)",
      ])
    if cap > capacity {
      logger.warning(
        "--max-connections is more than the open-files limit leaves for connections",
        metadata: ["max-connections": "\(cap)", "capacity": "\(capacity)"])
    }
    return cap
  }
}
