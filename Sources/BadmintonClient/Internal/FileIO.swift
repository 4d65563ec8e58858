#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file operation failed: what was done, to which file, and the system's error number.
public struct ClientFileError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What was being done, e.g. `rename`.
  public var operation: String
  /// The file.
  public var path: String
  /// `errno` after the failure.
  public var errorNumber: Int32

  public var description: String {
    "\(operation) \(path): \(String(cString: strerror(errorNumber)))"
  }
}

/// The few POSIX file operations the session's files need: whole reads, atomic replacement
/// with `fsync` of the file and its folder, and an appended log.
enum FileIO {
  static func fail(_ operation: String, _ path: String) -> ClientFileError {
    ClientFileError(operation: operation, path: path, errorNumber: errno)
  }

  /// The folder part of `path` (`.` when it has none).
  static func folder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// Creates `path` and its missing parents, mode 0700.
  static func makeFolder(_ path: String) throws {
    var current = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
      current += "/" + part
      if mkdir(current, 0o700) != 0 && errno != EEXIST { throw fail("mkdir", current) }
    }
  }

  /// The whole file, or nil when there is none.
  static func contents(of path: String) throws -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 {
      if errno == ENOENT { return nil }
      throw fail("open", path)
    }
    defer { close(fd) }
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw fail("read", path)
      }
      if count == 0 { return result }
      result.append(contentsOf: chunk[0..<count])
    }
  }

  /// Writes all of `bytes` to `fd`.
  static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { raw in
        write(fd, raw.baseAddress! + offset, raw.count - offset)
      }
      if written < 0 {
        if errno == EINTR { continue }
        throw fail("write", path)
      }
      offset += written
    }
  }

  /// `fsync` of the folder that holds `path`, so that a rename or removal in it is durable.
  static func syncFolder(of path: String) throws {
    let folder = folder(of: path)
    let fd = open(folder, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw fail("open", folder) }
    defer { close(fd) }
    if fsync(fd) != 0 { throw fail("fsync", folder) }
  }

  /// Replaces the file at `path` with `bytes`, whole or not at all: a new file beside it, with
  /// `mode`, written and `fsync`ed, renamed over it, then the folder `fsync`ed.
  static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o600) throws {
    let temporary = path + ".new"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    guard fd >= 0 else { throw fail("open", temporary) }
    do {
      // The mode holds whatever the process's umask says.
      if fchmod(fd, mode) != 0 { throw fail("chmod", temporary) }
      try writeAll(fd, bytes, path: temporary)
      if fsync(fd) != 0 { throw fail("fsync", temporary) }
    } catch {
      close(fd)
      unlink(temporary)
      throw error
    }
    close(fd)
    if rename(temporary, path) != 0 {
      let error = fail("rename", temporary)
      unlink(temporary)
      throw error
    }
    try syncFolder(of: path)
  }

  /// Removes the file at `path` durably; nothing when there is none.
  static func remove(_ path: String) throws {
    if unlink(path) != 0 {
      if errno == ENOENT { return }
      throw fail("unlink", path)
    }
    try syncFolder(of: path)
  }
}

/// A file written only at its end, each append `fsync`ed before it returns.
final class AppendOnlyFile {
  let path: String
  private var fd: Int32

  /// Opens (creating, mode 0600) the file at `path` for appending.
  init(path: String) throws {
    self.path = path
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw FileIO.fail("open", path) }
    try FileIO.syncFolder(of: path)
  }

  deinit { if fd >= 0 { _ = closeFile(fd) } }

  /// Appends `bytes` and waits until they are on disk.
  func append(_ bytes: [UInt8]) throws {
    try FileIO.writeAll(fd, bytes, path: path)
    if fsync(fd) != 0 { throw FileIO.fail("fsync", path) }
  }

  /// Cuts the file to its first `length` bytes, durably.
  func truncate(to length: Int) throws {
    if ftruncate(fd, off_t(length)) != 0 { throw FileIO.fail("truncate", path) }
    if fsync(fd) != 0 { throw FileIO.fail("fsync", path) }
  }

  /// Reopens the file after it was replaced by a rename.
  func reopen() throws {
    if fd >= 0 { _ = closeFile(fd) }
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw FileIO.fail("open", path) }
  }

  /// Closes the file; later appends fail.
  func close() {
    if fd >= 0 { _ = closeFile(fd) }
    fd = -1
  }

  private func closeFile(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
      Glibc.close(fd)
    #elseif canImport(Musl)
      Musl.close(fd)
    #else
      Darwin.close(fd)
    #endif
  }
}
