import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A throwaway PostgreSQL cluster for the tests: made with `initdb` in a temporary folder the
/// first time a test asks for a database, listening on a Unix socket in that folder only, and
/// stopped and removed when the test process exits. Each test works in a database of its own
/// (the stores' tests in one that `StoreTestSupport` empties for them and reuses after).
///
/// The server is Debian's PostgreSQL 15 (`postgresql-15`, which `scripts/deps.sh --tests`
/// installs), or the one whose programs are in `BADMINTON_POSTGRES_BIN`. PostgreSQL refuses to run as root, so
/// when the tests run as root the cluster runs as the `postgres` user the package made.
///
/// The cluster runs with `fsync = off`: the tests check what the product does, not what
/// PostgreSQL's disk writes survive, and a test suite on a synced disk is several times slower.
public enum PostgresTestCluster {
  /// A running cluster.
  public struct Cluster: Sendable {
    /// The folder holding the data, the socket and the log.
    public var folder: String
    /// The folder of the Unix socket.
    public var socketFolder: String
    /// The programs' folder.
    public var bin: String
    /// The cluster's superuser.
    public var user: String
    /// How to run a program as the cluster's owner.
    public var runAs: String?
    /// Server settings beyond the tests' own, as `-c name=value` options.
    public var settings: [String: String] = [:]

    /// The server's options.
    private var options: String {
      "-c listen_addresses='' -k \(folder) -p 5432 -c fsync=off -c full_page_writes=off "
        + "-c max_connections=400 -c shared_buffers=64MB"
        + settings.sorted { $0.key < $1.key }.map { " -c \($0.key)=\($0.value)" }.joined()
    }

    /// The URL of `database` for the product (`--database`).
    public func url(database: String) -> String {
      "postgresql://\(user)@localhost:5432/\(database)?host=\(socketFolder)"
    }

    /// A new, empty database in this cluster; its URL.
    public func makeDatabase() throws -> String {
      let name =
        "test_\(getpid())_\(PostgresTestCluster.counter.add(1, ordering: .relaxed).newValue)"
      try PostgresTestCluster.run(
        self, "psql",
        [
          "-h", socketFolder, "-U", user, "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-q", "-c",
          "CREATE DATABASE \(name)",
        ])
      return url(database: name)
    }

    /// Starts the server and waits until it accepts connections.
    public func start() throws {
      try PostgresTestCluster.run(
        self, "pg_ctl",
        [
          "-D", folder + "/data", "-l", folder + "/server.log", "-w", "-t", "60", "-o",
          options, "start",
        ])
    }

    /// Stops the server at once, as a crash or a power cut would (`-m immediate`): every session
    /// ends without a word and the next start recovers from the write-ahead log.
    public func stop() throws {
      try PostgresTestCluster.run(
        self, "pg_ctl", ["-D", folder + "/data", "-m", "immediate", "-w", "stop"])
    }

    /// Restarts the server at once (`pg_ctl restart -m immediate`) and waits until it accepts
    /// connections again.
    public func restart() throws {
      try PostgresTestCluster.run(
        self, "pg_ctl",
        [
          "-D", folder + "/data", "-l", folder + "/server.log", "-m", "immediate", "-w", "-t",
          "60", "-o",
          options, "restart",
        ])
    }

    /// Stops the server and removes its folder.
    public func remove() {
      try? stop()
      try? FileManager.default.removeItem(atPath: folder)
    }
  }

  /// Why a cluster could not be started.
  public struct StartError: Error, CustomStringConvertible {
    public var description: String
  }

  private static let state = Mutex<Result<Cluster, StartError>?>(nil)
  private static let counter = Atomic<Int>(0)

  /// The cluster, started on first use.
  public static func shared() throws -> Cluster {
    let result = state.withLock { state -> Result<Cluster, StartError> in
      if let state { return state }
      let started: Result<Cluster, StartError>
      do {
        started = .success(try start())
      } catch let error as StartError {
        started = .failure(error)
      } catch {
        started = .failure(StartError(description: "\(error)"))
      }
      state = started
      return started
    }
    return try result.get()
  }

  /// A new, empty database in the shared cluster; its URL.
  public static func makeDatabase() throws -> String {
    try makeDatabase(named: newDatabaseName())
  }

  /// A name no database of this test process has had.
  public static func newDatabaseName() -> String {
    "test_\(getpid())_\(counter.add(1, ordering: .relaxed).newValue)"
  }

  /// A new, empty database called `name` in the shared cluster; its URL.
  public static func makeDatabase(named name: String) throws -> String {
    let cluster = try shared()
    try psql(cluster, "CREATE DATABASE \(name)", in: "postgres")
    return cluster.url(database: name)
  }

  /// Runs `sql`, one statement, in `database` of the shared cluster, as its superuser.
  public static func execute(_ sql: String, in database: String) throws {
    try psql(try shared(), sql, in: database)
  }

  /// Runs `sql` in `database`.
  private static func psql(_ cluster: Cluster, _ sql: String, in database: String) throws {
    try run(
      cluster, "psql",
      [
        "-h", cluster.socketFolder, "-U", cluster.user, "-d", database,
        "-v", "ON_ERROR_STOP=1", "-q", "-c", sql,
      ])
  }

  private static func start() throws -> Cluster {
    let cluster = try create()
    atexit {
      guard case .success(let cluster)? = PostgresTestCluster.state.withLock({ $0 }) else {
        return
      }
      cluster.remove()
    }
    return cluster
  }

  /// A new cluster, running, in a folder of its own: for a test that restarts or stops its
  /// database, which the shared cluster's other users must not see. Call `remove()` when done.
  /// `settings` are server settings beyond the tests' own.
  public static func makePrivate(settings: [String: String] = [:]) throws -> Cluster {
    try create(settings: settings)
  }

  private static func create(settings: [String: String] = [:]) throws -> Cluster {
    let bin =
      ProcessInfo.processInfo.environment["BADMINTON_POSTGRES_BIN"]
      ?? "/usr/lib/postgresql/15/bin"
    guard FileManager.default.isExecutableFile(atPath: bin + "/initdb") else {
      throw StartError(
        description: "no PostgreSQL server at \(bin): run scripts/deps.sh --tests (postgresql-15)")
    }
    let folder = NSTemporaryDirectory() + "badminton-pg-\(getpid())-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let runAs: String? = getuid() == 0 ? "postgres" : nil
    if let runAs {
      try runToEnd("/bin/chown", [runAs, folder])
    }
    let cluster = Cluster(
      folder: folder, socketFolder: folder, bin: bin, user: "badminton", runAs: runAs,
      settings: settings)
    try run(
      cluster, "initdb",
      [
        "-D", folder + "/data", "-U", cluster.user, "--auth=trust", "--no-sync", "-E", "UTF8",
        "--locale=C", "-N",
      ])
    try cluster.start()
    return cluster
  }

  /// Runs one of the cluster's programs, as its owner.
  public static func run(_ cluster: Cluster, _ program: String, _ arguments: [String]) throws {
    let path = cluster.bin + "/" + program
    if let runAs = cluster.runAs {
      try runToEnd("/usr/sbin/runuser", ["-u", runAs, "--", path] + arguments)
    } else {
      try runToEnd(path, arguments)
    }
  }

  /// Runs `path` with `arguments` to its end (posix_spawn and waitpid: Foundation's `Process`
  /// waits for descriptors that the server `pg_ctl` starts keeps open); what it printed.
  ///
  /// The program gets none of this process's descriptors but its standard three. Sockets here
  /// are not close-on-exec (SwiftNIO's are not), and one inherited outlives its closing here:
  /// a test's listener, stopped, went on accepting connections in the child (`pg_ctl start`'s
  /// server keeps what it inherits for the cluster's life), which then hung or were reset.
  @discardableResult
  public static func runToEnd(_ path: String, _ arguments: [String]) throws -> String {
    let outputPath = NSTemporaryDirectory() + "badminton-pg-output-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: outputPath) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    guard let closeFrom = addCloseFrom, closeFrom(&actions, 3) == 0 else {
      throw StartError(
        description: "cannot run \(path) without this process's descriptors: "
          + "posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later) is missing")
    }
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
    guard spawned == 0 else {
      throw StartError(description: "cannot run \(path): error \(spawned)")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    let exited = (status & 0x7f) == 0 && ((status >> 8) & 0xff) == 0
    let output = String(
      decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self)
    guard exited else {
      throw StartError(
        description: "\(path) \(arguments.joined(separator: " ")) failed: " + output)
    }
    return output
  }

  /// glibc's `posix_spawn_file_actions_addclosefrom_np`, which its Swift module does not show.
  private static let addCloseFrom:
    (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
      guard
        let symbol = dlsym(
          UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
      else { return nil }
      return unsafeBitCast(
        symbol,
        to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)
          .self)
    }()

}
