import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The terminal settings to restore if the user interrupts while echo is off.
///
/// `nonisolated(unsafe)`: written once before the SIGINT handler is installed, and read only by
/// that handler and by the code that installed it.
private nonisolated(unsafe) var savedTerminal = termios()

/// Reading a password.
enum Terminal {
  /// A password: asked for on the terminal without echo when standard input is one (echo comes
  /// back afterwards, also on Ctrl-C), else the first line of standard input, for scripts.
  static func readPassword(prompt: String) -> String? {
    guard isatty(STDIN_FILENO) == 1 else { return readLine(strippingNewline: true) }
    FileHandle.standardError.write(Data(prompt.utf8))
    guard tcgetattr(STDIN_FILENO, &savedTerminal) == 0 else {
      return readLine(strippingNewline: true)
    }
    var silent = savedTerminal
    silent.c_lflag &= ~tcflag_t(ECHO)
    let previousHandler = signal(SIGINT) { _ in
      tcsetattr(STDIN_FILENO, TCSAFLUSH, &savedTerminal)
      _exit(130)
    }
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
    defer {
      tcsetattr(STDIN_FILENO, TCSAFLUSH, &savedTerminal)
      signal(SIGINT, previousHandler)
      FileHandle.standardError.write(Data("\n".utf8))
    }
    return readLine(strippingNewline: true)
  }
}
