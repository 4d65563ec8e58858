import Foundation
import PropertyBased
import Testing

@testable import BadmintonClient

@Suite("Durable write queue")
struct WriteQueueTests {
  static func write(_ number: Int, size: Int = 10) -> QueuedWrite {
    QueuedWrite(
      key: "key-\(number)", methodPath: "/badminton.v1.Messages/SendMessage",
      request: (0..<size).map { UInt8(truncatingIfNeeded: $0 &+ number) })
  }

  @Test("writes come back in order from a new queue over the same file, answered ones gone")
  func reopen_keepsOrder() throws {
    let folder = TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/writes.queue"
    do {
      let queue = try WriteQueue(path: path, limit: 100)
      defer { queue.close() }
      for number in 0..<6 { try queue.append(Self.write(number)) }
      try queue.remove(key: "key-0")
      try queue.remove(key: "key-3")
    }
    let reopened = try WriteQueue(path: path, limit: 100)
    defer { reopened.close() }
    #expect(reopened.writes == [1, 2, 4, 5].map { Self.write($0) })
  }

  @Test("a record torn by a crash is cut off, and what is appended after it is kept")
  func tornTail_isCutOff() throws {
    let folder = TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/writes.queue"
    do {
      let queue = try WriteQueue(path: path, limit: 100)
      defer { queue.close() }
      for number in 0..<3 { try queue.append(Self.write(number, size: 50)) }
    }
    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    bytes.removeLast(7)
    try bytes.write(to: URL(fileURLWithPath: path))
    do {
      let queue = try WriteQueue(path: path, limit: 100)
      defer { queue.close() }
      #expect(queue.writes == [Self.write(0, size: 50), Self.write(1, size: 50)])
      try queue.append(Self.write(7))
    }
    let reopened = try WriteQueue(path: path, limit: 100)
    defer { reopened.close() }
    #expect(reopened.writes.map(\.key) == ["key-0", "key-1", "key-7"])
  }

  @Test("a full queue refuses the next write with queueFull and keeps what it holds")
  func full_refuses() throws {
    let folder = TemporaryFolder()
    defer { folder.remove() }
    let queue = try WriteQueue(path: folder.path + "/writes.queue", limit: 2)
    defer { queue.close() }
    try queue.append(Self.write(0))
    try queue.append(Self.write(1))
    #expect(throws: ClientError.queueFull(limit: 2)) { try queue.append(Self.write(2)) }
    #expect(queue.writes.count == 2)
  }

  @Test("the log is emptied with the queue and rewritten when much larger than its writes")
  func log_staysSmall() throws {
    let folder = TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/writes.queue"
    let queue = try WriteQueue(path: path, limit: 1000, compactionThreshold: 4096)
    defer { queue.close() }
    try queue.append(Self.write(0))
    try queue.remove(key: "key-0")
    #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == 0)
    try queue.append(Self.write(-1, size: 100))
    for number in 0..<200 {
      try queue.append(Self.write(number, size: 100))
      try queue.remove(key: "key-\(number)")
    }
    let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    #expect(size < 3 * 4096)
    let reread = WriteQueue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    #expect(reread.writes == [Self.write(-1, size: 100)])
  }

  /// One step of a random queue's life.
  enum Operation: Sendable, CustomStringConvertible {
    case append(size: Int)
    case remove(pick: Int)
    case reopen

    var description: String {
      switch self {
      case .append(let size): "append(\(size))"
      case .remove(let pick): "remove(#\(pick))"
      case .reopen: "reopen"
      }
    }
  }

  static let operations = Generator { rng in
    switch Int.random(in: 0..<10, using: &rng) {
    case 0..<5: Operation.append(size: Int.random(in: 0...300, using: &rng))
    case 5..<9: Operation.remove(pick: Int.random(in: 0..<1000, using: &rng))
    default: Operation.reopen
    }
  }

  @Test("for any appends, removals and reopenings the queue holds what a plain list holds")
  func anyOperations_matchList() async {
    await propertyCheck(count: 60, input: Self.operations.array(of: 1...60)) { operations in
      let folder = TemporaryFolder()
      defer { folder.remove() }
      let path = folder.path + "/writes.queue"
      do {
        // A small threshold, so that the log is rewritten now and then.
        var queue = try WriteQueue(path: path, limit: 1000, compactionThreshold: 2048)
        var model: [QueuedWrite] = []
        for (step, operation) in operations.enumerated() {
          switch operation {
          case .append(let size):
            let write = Self.write(step, size: size)
            try queue.append(write)
            model.append(write)
          case .remove(let pick):
            guard !model.isEmpty else { continue }
            let key = model[pick % model.count].key
            try queue.remove(key: key)
            model.removeAll { $0.key == key }
          case .reopen:
            queue.close()
            queue = try WriteQueue(path: path, limit: 1000, compactionThreshold: 2048)
          }
          #expect(queue.writes == model)
        }
        queue.close()
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(WriteQueue.parse(bytes).writes == model)
        #expect(WriteQueue.parse(bytes).validBytes == bytes.count)
      } catch {
        Issue.record(error)
      }
    }
  }

  @Test("a second queue over a file in use is refused")
  func secondOpen_isRefused() throws {
    let folder = TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/writes.queue"
    let queue = try WriteQueue(path: path, limit: 10)
    #expect(throws: ClientFileError.self) { _ = try WriteQueue(path: path, limit: 10) }
    queue.close()
    let again = try WriteQueue(path: path, limit: 10)
    again.close()
  }
}

@Suite("Token store")
struct TokenStoreTests {
  @Test("the file store keeps the session across instances, readable by its owner only")
  func fileStore_roundTrips() throws {
    let folder = TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/nested/session.json"
    let session = StoredSession(
      token: "t0ken", userID: 42, expiresAtUnixMs: 1_900_000_000_000, lastEventSequence: 17)
    try FileTokenStore(path: path).save(session)
    #expect(try FileTokenStore(path: path).load() == session)
    let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
    #expect(!FileManager.default.fileExists(atPath: path + ".new"))
    try FileTokenStore(path: path).save(nil)
    #expect(try FileTokenStore(path: path).load() == nil)
  }
}
