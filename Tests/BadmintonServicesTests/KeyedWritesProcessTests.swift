import BadmintonAPI
import BadmintonRPC
import Foundation
import Testing

/// Idempotency keys in real `badminton-server` processes: after SIGKILL and a restart, and
/// across two instances on one PostgreSQL database.
@Suite("Idempotency keys across crashes and instances")
struct KeyedWritesProcessTests {
  typealias Instance = MultiInstanceTests.Instance

  /// The answer of `method` called through `client` with `key`.
  static func call<Request: ProtobufMessage, Response: ProtobufMessage>(
    _ client: RPCClient, _ method: MethodDescriptor<Request, Response>, _ request: Request,
    token: String, key: String
  ) async -> Answer {
    await Answer {
      try await client.unary(
        path: method.path, payload: request.serializedBytes(), idempotent: false,
        options: CallOptions(bearerToken: token, idempotencyKey: key))
    }
  }

  @Test("a write acknowledged before SIGKILL is answered, not repeated, after the restart")
  func keyedWrites_surviveSIGKILL() async throws {
    let dataDir = FileManager.default.temporaryDirectory
      .appendingPathComponent("badminton-keys-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dataDir) }
    let first = Instance(
      server: try ServerProcess.start(["--data-dir", dataDir.path]), client: nil)
    let ann = try await MultiInstanceTests.player("Ann", through: first.client)
    let bo = try await MultiInstanceTests.player("Bo", through: first.client)
    let post = MultiInstanceTests.slot(600, 720)
    let friend = SendFriendRequestRequest(userID: bo.id)
    let posted = await Self.call(
      first.client, Matching.postAvailability, post, token: ann.token, key: "post")
    let asked = await Self.call(
      first.client, Friends.sendFriendRequest, friend, token: ann.token, key: "ask")
    guard case .response = posted, case .response = asked else {
      Issue.record("the writes were refused: \(posted) \(asked)")
      await first.close()
      return
    }
    // The answers were acknowledged; the process dies at once.
    await first.close()

    let second = Instance(
      server: try ServerProcess.start(["--data-dir", dataDir.path]), client: nil)
    #expect(
      await Self.call(second.client, Matching.postAvailability, post, token: ann.token, key: "post")
        == posted)
    // A retried friend request gets its first answer, not FRIEND_REQUEST_PENDING.
    #expect(
      await Self.call(
        second.client, Friends.sendFriendRequest, friend, token: ann.token, key: "ask")
        == asked)
    let listed = try await second.client.matching.listMyAvailability(
      options: CallOptions(bearerToken: ann.token))
    #expect(listed.availability.count == 1)
    await second.close()
  }

  @Test(
    "two instances on one database: a repeat through the other gets the first answer, and repeats sent to both at once write once"
  )
  func keyedWrites_acrossInstances() async throws {
    try await MultiInstanceTests.withInstances(2) { database, instances in
      let (one, two) = (instances[0], instances[1])
      let ann = try await MultiInstanceTests.player("Ann", through: one.client)
      let bo = try await MultiInstanceTests.player("Bo", through: two.client)
      // A friend request: without its key, a repeat would be refused FRIEND_REQUEST_PENDING.
      let ask = SendFriendRequestRequest(userID: bo.id)
      let sent = await Self.call(
        one.client, Friends.sendFriendRequest, ask, token: ann.token, key: "hello")
      guard case .response = sent else {
        Issue.record("the request was refused: \(sent)")
        return
      }
      #expect(
        await Self.call(two.client, Friends.sendFriendRequest, ask, token: ann.token, key: "hello")
          == sent)
      // Eight repeats of one post, four through each instance, at once: one availability.
      let post = MultiInstanceTests.slot(600, 720)
      let answers = await withTaskGroup(of: Answer.self) { group in
        for index in 0..<8 {
          let client = index.isMultiple(of: 2) ? one.client : two.client
          group.addTask {
            await Self.call(client, Matching.postAvailability, post, token: bo.token, key: "post")
          }
        }
        return await group.reduce(into: []) { $0.append($1) }
      }
      #expect(Set(answers.map { "\($0)" }).count == 1)
      let listed = try await one.client.matching.listMyAvailability(
        options: CallOptions(bearerToken: bo.token))
      #expect(listed.availability.count == 1)
      // An instance killed and started again answers from the database as well.
      await one.close()
      let again = try Instance.start(database: database)
      #expect(
        await Self.call(
          again.client, Friends.sendFriendRequest, ask, token: ann.token, key: "hello")
          == sent)
      await again.close()
    }
  }
}

extension MultiInstanceTests.Instance {
  /// An instance of `server`, with a client of its port.
  init(server: ServerProcess, client: RPCClient?) {
    self.init(
      server: server, client: client ?? RPCClient(host: "127.0.0.1", port: server.port))
  }
}
