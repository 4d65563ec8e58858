import ArgumentParser
import BadmintonJSON
import BadmintonRPC
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Writing to standard output and standard error without buffering, so pipes see each line at
/// once (a subscriber's events, a script's progress).
enum Output {
  /// Writes `text` and a newline to standard output.
  static func line(_ text: String) {
    write(text + "\n", to: STDOUT_FILENO)
  }

  /// Writes `text` as is to standard output.
  static func write(_ text: String) {
    write(text, to: STDOUT_FILENO)
  }

  /// Writes `text` and a newline to standard error.
  static func error(_ text: String) {
    write(text + "\n", to: STDERR_FILENO)
  }

  /// Writes all of `text` to `descriptor`. When the reader has gone (`badminton subscribe | head`
  /// after `head` exits), the command ends quietly with status 0, as command-line tools do.
  private static func write(_ text: String, to descriptor: Int32) {
    var bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeMutableBytes { buffer in
        Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
      }
      if count > 0 {
        written += count
      } else if count < 0 && errno == EINTR {
        continue
      } else {
        // EPIPE (the pipe's reader is gone; SIGPIPE is ignored once a socket opens) or another
        // failure to write: nothing more can be said on this stream.
        exit(descriptor == STDOUT_FILENO ? 0 : 1)
      }
    }
  }

  /// The JSON of the binary message `bytes` of type `message`, ending in a newline; bytes that
  /// do not decode are the server's fault.
  static func json(
    _ bytes: [UInt8], as message: CMessageDescriptor, compact: Bool
  ) throws(CLIFailure) -> String {
    do {
      return try ProtoJSON.encode(bytes, as: message, compact: compact)
    } catch {
      throw CLIFailure(
        message: "the server sent a \(message.fullName) that does not decode: \(error)",
        status: ExitStatus.serverFault)
    }
  }

  /// Runs `body`, reporting an `RPCError`, a `ProtoJSONError` or a `CLIFailure` on standard error
  /// and turning it into the matching exit status.
  static func reporting(
    locale: RPCLocale, _ body: () async throws -> Void
  ) async throws {
    do {
      try await body()
    } catch let rpcError as RPCError {
      Output.error(describe(rpcError, locale: locale))
      if rpcError.code == .unauthenticated {
        Output.error("hint: run `badminton login PHONE` first, or again if the session expired")
      }
      throw ExitCode(ExitStatus.status(for: rpcError))
    } catch let failure as CLIFailure {
      Output.error("badminton: \(failure.message)")
      throw ExitCode(failure.status)
    }
  }

  /// A non-OK status for standard error: code, reason, message, one line per violation, then
  /// the retry hint (`retry after N ms`) when the status carries one.
  static func describe(_ error: RPCError, locale: RPCLocale) -> String {
    var lines = [
      "error: \(error.code.name) (\(error.code.rawValue)) \(error.reason)",
      "  \(error.message.text(in: locale))",
    ]
    for violation in error.violations {
      lines.append(
        "  field \(violation.field): \(violation.reason): \(violation.description.text(in: locale))"
      )
    }
    if error.retryAfterMs > 0 {
      lines.append("  retry after \(error.retryAfterMs) ms")
    }
    return lines.joined(separator: "\n")
  }
}
