#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One write waiting for a definite answer: its key, its method and its encoded request.
public struct QueuedWrite: Sendable, Hashable {
  /// The idempotency key every attempt carries.
  public var key: String
  /// The method's path, e.g. `/badminton.v1.Matching/PostAvailability`.
  public var methodPath: String
  /// The encoded request.
  public var request: [UInt8]

  /// A queued write.
  public init(key: String, methodPath: String, request: [UInt8]) {
    self.key = key
    self.methodPath = methodPath
    self.request = request
  }
}

/// The session's durable FIFO of writes: an append-only log of records (a write added, a write
/// answered) in one file, each appended and `fsync`ed before the call returns, so that a write
/// the app was told is queued survives the app being killed. A record torn by a crash fails its
/// checksum and is cut off at the next open. The log is emptied when the queue is, and rewritten
/// (atomically) when it grows much larger than what it holds. A lock file beside it keeps a
/// second session from using the same queue at the same time.
///
/// A record: kind (1 byte: 1 added, 2 answered), body length (4 bytes, big endian), FNV-1a
/// checksum of the body (4 bytes), body. An added write's body: key length (2 bytes), key,
/// method path length (2 bytes), path, request. An answered write's body: its key.
final class WriteQueue {
  /// The writes in the order they were added.
  private(set) var writes: [QueuedWrite] = []
  /// Writes it may hold.
  let limit: Int
  private let file: AppendOnlyFile
  private let lockDescriptor: Int32
  private var fileBytes: Int
  /// Set when the file may no longer match what the queue holds (a torn record that could not
  /// be cut off, a rewrite that failed half-way): the next change rewrites the whole log first,
  /// so that nothing is ever appended behind a bad record or into a file no longer at the path.
  private var needsRewrite = false
  /// The log is rewritten when it is larger than this and twice what it holds.
  private let compactionThreshold: Int

  private static let added: UInt8 = 1
  private static let answered: UInt8 = 2

  /// Opens the queue in the file at `path` (creating it and its folder), holding at most
  /// `limit` writes.
  init(path: String, limit: Int, compactionThreshold: Int = 1 << 20) throws {
    self.limit = limit
    self.compactionThreshold = compactionThreshold
    try FileIO.makeFolder(FileIO.folder(of: path))
    let lockPath = path + ".lock"
    lockDescriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard lockDescriptor >= 0 else { throw FileIO.fail("open", lockPath) }
    // A session closing, or a process that was being started while it held the lock (a child
    // holds the parent's descriptors until it execs), may hold it a moment longer: wait up to a
    // second for it, then refuse.
    var attempts = 0
    while flock(lockDescriptor, LOCK_EX | LOCK_NB) != 0 {
      attempts += 1
      guard errno == EWOULDBLOCK || errno == EINTR, attempts < 50 else {
        let error = FileIO.fail("lock", lockPath)
        _ = Self.closeDescriptor(lockDescriptor)
        throw error
      }
      usleep(20_000)
    }
    do {
      let bytes = try FileIO.contents(of: path) ?? []
      let (writes, validBytes) = Self.parse(bytes)
      self.writes = writes
      file = try AppendOnlyFile(path: path)
      fileBytes = validBytes
      if validBytes < bytes.count { try file.truncate(to: validBytes) }
    } catch {
      _ = Self.closeDescriptor(lockDescriptor)
      throw error
    }
  }

  deinit { close() }

  private var closed = false

  /// Closes the file and releases the lock.
  func close() {
    guard !closed else { return }
    closed = true
    file.close()
    _ = Self.closeDescriptor(lockDescriptor)
  }

  /// Whether the queue holds a write with `key`.
  func contains(key: String) -> Bool { writes.contains { $0.key == key } }

  /// Adds `write` at the end, durably; throws `ClientError.queueFull` when it holds `limit`.
  func append(_ write: QueuedWrite) throws {
    guard writes.count < limit else { throw ClientError.queueFull(limit: limit) }
    if needsRewrite { try rewrite() }
    let record = Self.record(Self.added, Self.body(of: write))
    do {
      try file.append(record)
    } catch {
      // A part written would hide every later record from the next open.
      cutBack()
      throw error
    }
    fileBytes += record.count
    writes.append(write)
  }

  /// Cuts off what a failed append may have left; when even that fails, the next change
  /// rewrites the log.
  private func cutBack() {
    do {
      try file.truncate(to: fileBytes)
    } catch {
      needsRewrite = true
    }
  }

  /// Writes the whole log again from what the queue holds, atomically, and reopens it.
  private func rewrite() throws {
    var bytes: [UInt8] = []
    for write in writes { bytes += Self.record(Self.added, Self.body(of: write)) }
    needsRewrite = true
    let replaced = Result { try FileIO.replace(file.path, with: bytes, mode: 0o600) }
    // The path holds the new log if the rename happened, the old one if not: either way the file
    // to append to is the one at the path now.
    try file.reopen()
    try replaced.get()
    fileBytes = bytes.count
    needsRewrite = false
  }

  /// Removes the write with `key` and records that durably; nothing when there is none.
  func remove(key: String) throws {
    guard let index = writes.firstIndex(where: { $0.key == key }) else { return }
    // Gone from memory even when the file cannot record it: a write left in the file is sent
    // again with its key by the next session, which the server answers as the first time.
    writes.remove(at: index)
    if needsRewrite {
      try rewrite()
    } else if writes.isEmpty {
      try file.truncate(to: 0)
      fileBytes = 0
    } else {
      let record = Self.record(Self.answered, Array(key.utf8))
      do {
        try file.append(record)
      } catch {
        cutBack()
        throw error
      }
      fileBytes += record.count
      try compactIfLarge()
    }
  }

  /// Rewrites the log with only what it holds when it has grown far past that.
  private func compactIfLarge() throws {
    guard fileBytes > compactionThreshold else { return }
    var bytes: [UInt8] = []
    for write in writes { bytes += Self.record(Self.added, Self.body(of: write)) }
    guard fileBytes > 2 * bytes.count else { return }
    try rewrite()
  }

  // MARK: Encoding

  private static func body(of write: QueuedWrite) -> [UInt8] {
    let key = Array(write.key.utf8)
    let path = Array(write.methodPath.utf8)
    var body: [UInt8] = []
    body.reserveCapacity(4 + key.count + path.count + write.request.count)
    appendUInt16(UInt16(key.count), to: &body)
    body += key
    appendUInt16(UInt16(path.count), to: &body)
    body += path
    body += write.request
    return body
  }

  private static func record(_ kind: UInt8, _ body: [UInt8]) -> [UInt8] {
    var record: [UInt8] = [kind]
    record.reserveCapacity(9 + body.count)
    appendUInt32(UInt32(body.count), to: &record)
    appendUInt32(checksum(body), to: &record)
    record += body
    return record
  }

  /// The writes the log holds and the length of its valid prefix.
  static func parse(_ bytes: [UInt8]) -> (writes: [QueuedWrite], validBytes: Int) {
    var writes: [QueuedWrite] = []
    var offset = 0
    while bytes.count - offset >= 9 {
      let kind = bytes[offset]
      let length = Int(readUInt32(bytes, offset + 1))
      let sum = readUInt32(bytes, offset + 5)
      let start = offset + 9
      guard kind == added || kind == answered, length <= bytes.count - start else { break }
      let body = Array(bytes[start..<start + length])
      guard checksum(body) == sum else { break }
      if kind == added {
        guard let write = decodeAdded(body) else { break }
        if !writes.contains(where: { $0.key == write.key }) { writes.append(write) }
      } else {
        let key = String(decoding: body, as: UTF8.self)
        writes.removeAll { $0.key == key }
      }
      offset = start + length
    }
    return (writes, offset)
  }

  private static func decodeAdded(_ body: [UInt8]) -> QueuedWrite? {
    guard body.count >= 2 else { return nil }
    let keyLength = Int(readUInt16(body, 0))
    guard body.count >= 2 + keyLength + 2 else { return nil }
    let key = String(decoding: body[2..<2 + keyLength], as: UTF8.self)
    let pathLength = Int(readUInt16(body, 2 + keyLength))
    let pathStart = 4 + keyLength
    guard body.count >= pathStart + pathLength else { return nil }
    let path = String(decoding: body[pathStart..<pathStart + pathLength], as: UTF8.self)
    return QueuedWrite(
      key: key, methodPath: path, request: Array(body[(pathStart + pathLength)...]))
  }

  /// 32-bit FNV-1a.
  static func checksum(_ bytes: [UInt8]) -> UInt32 {
    var hash: UInt32 = 2_166_136_261
    for byte in bytes {
      hash ^= UInt32(byte)
      hash = hash &* 16_777_619
    }
    return hash
  }

  private static func appendUInt16(_ value: UInt16, to bytes: inout [UInt8]) {
    bytes.append(UInt8(value >> 8))
    bytes.append(UInt8(value & 0xFF))
  }

  private static func appendUInt32(_ value: UInt32, to bytes: inout [UInt8]) {
    for shift in stride(from: 24, through: 0, by: -8) {
      bytes.append(UInt8((value >> shift) & 0xFF))
    }
  }

  private static func readUInt16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
    UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
  }

  private static func readUInt32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[offset + $1]) }
  }

  private static func closeDescriptor(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
      Glibc.close(fd)
    #elseif canImport(Musl)
      Musl.close(fd)
    #else
      Darwin.close(fd)
    #endif
  }
}
