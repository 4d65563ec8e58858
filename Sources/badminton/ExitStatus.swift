import ArgumentParser
import BadmintonRPC

/// The exit statuses of `badminton`: one per class of outcome, so scripts can branch on them.
enum ExitStatus {
  /// The call succeeded.
  static let ok: Int32 = 0
  /// The server refused the request as it stands: INVALID_ARGUMENT, FAILED_PRECONDITION,
  /// OUT_OF_RANGE, ALREADY_EXISTS or NOT_FOUND. Change the request before trying again.
  static let refused: Int32 = 2
  /// UNAUTHENTICATED or PERMISSION_DENIED: log in, or as someone else.
  static let unauthorized: Int32 = 3
  /// UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, CANCELLED or ABORTED: worth retrying
  /// as is, later.
  static let retryable: Int32 = 4
  /// Any other status (INTERNAL, UNKNOWN, UNIMPLEMENTED, DATA_LOSS): the server's fault.
  static let serverFault: Int32 = 5
  /// The command line is wrong: an unknown option or method, a bad value (as ArgumentParser).
  static let usage: Int32 = 64
  /// The request JSON is not a valid message of the method's request type.
  static let badJSON: Int32 = 65
  /// A request file (`@file`) could not be read.
  static let noInput: Int32 = 66
  /// The server could not be reached, or not over the TLS asked for (a `TLS_` reason).
  static let cannotConnect: Int32 = 69
  /// The session file could not be written or removed.
  static let ioError: Int32 = 74

  /// The exit status for a call that ended with `error`.
  static func status(for error: RPCError) -> Int32 {
    if error.reason == RPCError.connectFailed("").reason { return cannotConnect }
    // TLS_REQUIRED, TLS_CERTIFICATE_UNTRUSTED, ...: no call reached the server, nor will as is.
    if error.reason.hasPrefix("TLS_") { return cannotConnect }
    // Too large is refused the same way every time: not worth retrying as it is.
    if error.reason == "REQUEST_TOO_LARGE" || error.reason == "RESPONSE_TOO_LARGE" {
      return refused
    }
    switch error.code {
    case .invalidArgument, .failedPrecondition, .outOfRange, .alreadyExists, .notFound:
      return refused
    case .unauthenticated, .permissionDenied:
      return unauthorized
    case .unavailable, .deadlineExceeded, .resourceExhausted, .cancelled, .aborted:
      return retryable
    default:
      return serverFault
    }
  }

  /// The exit statuses as `--help` shows them.
  static let helpText = """
    Exit status:
      0   OK
      2   refused: INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE,
          ALREADY_EXISTS, NOT_FOUND
      3   UNAUTHENTICATED or PERMISSION_DENIED (log in first)
      4   worth retrying: UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED,
          CANCELLED, ABORTED
      5   server fault: INTERNAL, UNKNOWN, UNIMPLEMENTED, DATA_LOSS, others
      64  usage error (bad option, unknown or ambiguous method)
      65  the request JSON is not a valid request message
      66  the request file cannot be read
      69  cannot connect to the server (or TLS_REQUIRED, TLS_CERTIFICATE_UNTRUSTED,
          TLS_HOSTNAME_MISMATCH, TLS_HANDSHAKE_FAILED)
      74  the session file cannot be written or removed
    """
}

/// A failure `badminton` reports itself: the text for standard error and the exit status.
struct CLIFailure: Error {
  /// What went wrong, for standard error.
  var message: String
  /// The process's exit status.
  var status: Int32
}
