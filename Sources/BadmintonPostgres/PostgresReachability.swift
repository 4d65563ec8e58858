import Foundation
public import Logging
import NIOCore
import PostgresNIO

/// Why a database named by URL cannot be served from, in words an operator can act on.
public struct DatabaseUnreachable: Error, CustomStringConvertible {
  /// The problem: the URL's form, the server that cannot be reached, or what the server said
  /// (an unknown database, a refused login). Never holds the URL's password.
  public var description: String
}

extension PostgresStore {
  /// Connects once to the database at `url`, without a pool, and disconnects: throws
  /// `DatabaseUnreachable` naming the problem when the URL is not a PostgreSQL URL, the server
  /// cannot be reached within `timeout`, or it refuses the login or the database. A pool retries
  /// a failing connection until it gives up without saying why; this says why, at once.
  public static func checkReachable(
    url: String, timeout: Duration = .seconds(10),
    logger: Logger = Logger(label: "badminton.postgres")
  ) async throws {
    let client: PostgresClient.Configuration
    do {
      client = try clientConfiguration(url: url)
    } catch {
      throw DatabaseUnreachable(description: notAURL)
    }
    var configuration: PostgresConnection.Configuration
    let place: String
    if let socket = client.unixSocketPath {
      configuration = PostgresConnection.Configuration(
        unixSocketPath: socket, username: client.username, password: client.password,
        database: client.database)
      place = "the socket \(socket)"
    } else {
      let host = client.host ?? "localhost"
      let port = client.port ?? 5432
      configuration = PostgresConnection.Configuration(
        host: host, port: port, username: client.username, password: client.password,
        database: client.database, tls: .disable)
      place = "\(host):\(port)"
    }
    configuration.options.connectTimeout = TimeAmount.nanoseconds(
      timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
    do {
      let connection = try await PostgresConnection.connect(
        configuration: configuration, id: 0, logger: logger)
      try await connection.close()
    } catch let error as PSQLError {
      throw DatabaseUnreachable(description: Self.problem(error, place: place))
    } catch {
      throw DatabaseUnreachable(description: "cannot connect to \(place): \(error)")
    }
  }

  static let notAURL =
    "not a PostgreSQL URL (postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?host=/socket/folder])"

  /// What `error`, thrown by `checkReachable` or `open`, says in words, never with the URL's
  /// password (PostgresNIO's own errors describe themselves as a generic text on purpose).
  public static func describe(openError error: any Error) -> String {
    switch error {
    case let error as DatabaseUnreachable: error.description
    case OpenError.badURL: notAURL
    case let error as PSQLError: problem(error, place: "the database")
    default: "\(error)"
    }
  }

  /// What `error` says in words: the server's own message when it sent one, else the failure
  /// to connect to `place`.
  static func problem(_ error: PSQLError, place: String) -> String {
    if let message = error.serverInfo?[.message] {
      return message
    }
    if let underlying = error.underlying {
      return "cannot connect to \(place): \(underlying)"
    }
    return "cannot connect to \(place): \(error.code)"
  }
}
