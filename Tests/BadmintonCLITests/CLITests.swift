import BadmintonAPI
import BadmintonJSON
import BadmintonRPC
import CBadmintonRPCProto
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A built executable of this package: they sit next to the test bundle.
private func executable(_ name: String) -> URL {
  URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    .deletingLastPathComponent().appendingPathComponent(name)
}

/// A `badminton-server` on a free port over a temporary data folder, and a config folder per
/// player for `badminton`'s session file.
private final class World {
  let server: Process
  let port: Int
  let root: URL

  /// A server run with `serverArguments` added to the test defaults.
  init(serverArguments: [String] = []) throws {
    root = FileManager.default.temporaryDirectory
      .appendingPathComponent("badminton-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    server = Process()
    server.executableURL = executable("badminton-server")
    server.arguments =
      [
        "--port", "0", "--data-dir", root.appendingPathComponent("data").path,
        "--log-level", "error", "--scrypt-log-n", "10",
      ] + serverArguments
    let output = Pipe()
    server.standardOutput = output
    try server.run()
    var line: [UInt8] = []
    while let byte = output.fileHandleForReading.readData(ofLength: 1).first, byte != 0x0A {
      line.append(byte)
    }
    guard let port = Int(String(decoding: line, as: UTF8.self).split(separator: ":").last ?? "")
    else {
      server.terminate()
      throw CocoaError(.fileReadCorruptFile)
    }
    self.port = port
  }

  deinit {
    server.terminate()
    server.waitUntilExit()
    try? FileManager.default.removeItem(at: root)
  }

  /// The config folder (`XDG_CONFIG_HOME`) of `player`.
  func config(_ player: String) -> URL { root.appendingPathComponent("config-\(player)") }

  /// The session file of `player`.
  func sessionFile(_ player: String) -> String {
    config(player).appendingPathComponent("badminton/session").path
  }

  /// The environment `badminton` runs in as `player`.
  func environment(_ player: String) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["BADMINTON_SERVER"] = "127.0.0.1:\(port)"
    environment["XDG_CONFIG_HOME"] = config(player).path
    return environment
  }

  /// Runs `badminton arguments` as `player` to the end, with `input` on standard input.
  func run(
    _ arguments: [String], as player: String = "ann", input: String = ""
  ) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = executable("badminton")
    process.arguments = arguments
    process.environment = environment(player)
    let id = UUID().uuidString
    let outPath = root.appendingPathComponent("\(id).out")
    let errPath = root.appendingPathComponent("\(id).err")
    _ = FileManager.default.createFile(atPath: outPath.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errPath.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: outPath)
    process.standardError = try FileHandle(forWritingTo: errPath)
    let stdin = Pipe()
    process.standardInput = stdin
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    process.waitUntilExit()
    return (
      process.terminationStatus,
      try String(contentsOf: outPath, encoding: .utf8),
      try String(contentsOf: errPath, encoding: .utf8)
    )
  }

  /// Registers a player with `phone` and logs in as `player`; returns the player's id.
  @discardableResult
  func registerAndLogin(_ player: String, phone: String, level: Int = 5) throws -> Int64 {
    let registered = try run([
      "call", "Accounts/Register",
      #"{"phone": "\#(phone)", "nickname": "\#(player)", "password": "pass \#(player)", "#
        + #""selfLevel": \#(level)}"#,
    ])
    #expect(registered.status == 0, "\(registered.stderr)")
    let response = try ProtoJSON.decode(registered.stdout, as: RegisterResponse.self)
    let login = try run(["login", phone], as: player, input: "pass \(player)\n")
    #expect(login.status == 0, "\(login.stderr)")
    return response.userID
  }
}

@Suite("The badminton command against a real server")
struct CLITests {
  @Test("list prints every method of every service with its request and response types")
  func list_printsEveryMethod() throws {
    let world = try World()
    let result = try world.run(["list"])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = Set(result.stdout.split(separator: "\n").map(String.init))
    for service in RPCContract.services + APIContract.services {
      for method in service.methods {
        let start =
          "/\(service.fullName)/\(method.name) \(method.requestType) -> "
          + method.responseType
        #expect(lines.contains { $0.hasPrefix(start) }, "missing \(start)")
      }
    }
    let json = try world.run(["list", "--json-lines"])
    #expect(json.status == 0)
    let first = try #require(json.stdout.split(separator: "\n").first)
    #expect(try ProtoJSON.decode(String(first), as: MethodInfo.self).path.hasPrefix("/"))
  }

  @Test("--tls against a plain server exits 69 with TLS_HANDSHAKE_FAILED; a bad --ca-file exits 64")
  func tls_refusalsExitClearly() throws {
    let world = try World()
    let handshake = try world.run(["list", "--tls"])
    #expect(handshake.status == 69, "\(handshake.stderr)")
    #expect(handshake.stderr.contains("TLS_HANDSHAKE_FAILED"), "\(handshake.stderr)")
    let missing = world.root.appendingPathComponent("no-such-ca.pem").path
    let badFile = try world.run(["list", "--ca-file", missing])
    #expect(badFile.status == 64)
    #expect(badFile.stderr.contains(missing), "\(badFile.stderr)")
  }

  @Test("describe prints the request message's fields; an unknown method exits 64")
  func describe_listsFields() throws {
    let world = try World()
    let result = try world.run(["describe", "Players/UpdateProfile"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("message badminton.v1.UpdateProfileRequest {"))
    let descriptor = UpdateProfileRequest.cDescriptor.pointer.pointee
    for index in 0..<Int(descriptor.n_fields) {
      let name = String(cString: descriptor.fields[index].name)
      #expect(result.stdout.contains(" \(name) = \(descriptor.fields[index].id);"))
    }
    for spelling in [
      "/badminton.v1.Players/UpdateProfile", "badminton.v1.Players/UpdateProfile",
      "Players.UpdateProfile", "players/updateprofile", "UpdateProfile",
    ] {
      #expect(try world.run(["describe", spelling]).stdout == result.stdout)
    }
    let unknown = try world.run(["describe", "Players/UpdateProfil"])
    #expect(unknown.status == 64)
    #expect(unknown.stderr.contains("/badminton.v1.Players/UpdateProfile"))
  }

  @Test("call prints the response as JSON; login keeps a 0600 session that calls use")
  func call_login_logout() throws {
    let world = try World()
    let userID = try world.registerAndLogin("ann", phone: "+8613800000001", level: 6)
    var info = stat()
    #expect(stat(world.sessionFile("ann"), &info) == 0)
    #expect(info.st_mode & 0o7777 == 0o600)

    let profile = try world.run(["call", "Players/GetMyProfile"])
    #expect(profile.status == 0, "\(profile.stderr)")
    let decoded = try ProtoJSON.decode(profile.stdout, as: Profile.self)
    #expect(decoded.userID == userID)
    #expect(decoded.nickname == "ann")
    #expect(decoded.selfLevel == 6)
    #expect(profile.stdout.contains("\n  \"nickname\": \"ann\""))

    let compact = try world.run(["call", "Players/GetMyProfile", "--json-lines"])
    #expect(compact.stdout.split(separator: "\n").count == 1)
    #expect(try ProtoJSON.decode(compact.stdout, as: Profile.self) == decoded)

    let file = world.root.appendingPathComponent("request.json")
    try Data(#"{"nickname": "Ann B"}"#.utf8).write(to: file)
    let fromFile = try world.run(["call", "Players/UpdateProfile", "@\(file.path)"])
    #expect(try ProtoJSON.decode(fromFile.stdout, as: Profile.self).nickname == "Ann B")
    let fromStdin = try world.run(
      ["call", "Players/UpdateProfile", "-"], input: #"{"nickname": "Ann C"}"#)
    #expect(try ProtoJSON.decode(fromStdin.stdout, as: Profile.self).nickname == "Ann C")

    let logout = try world.run(["logout"])
    #expect(logout.status == 0, "\(logout.stderr)")
    #expect(!FileManager.default.fileExists(atPath: world.sessionFile("ann")))
    let afterwards = try world.run(["call", "Players/GetMyProfile"])
    #expect(afterwards.status == 3)
    #expect(afterwards.stderr.contains("UNAUTHENTICATED"))
  }

  @Test("call --idempotency-key: run again, the write answers as before and happens once")
  func call_withIdempotencyKey_writesOnce() throws {
    let world = try World()
    try world.registerAndLogin("ann", phone: "+8613800000077")
    let listed = try world.run(["list"])
    #expect(listed.stdout.contains("/badminton.v1.Players/UpdateProfile "))
    #expect(
      listed.stdout.split(separator: "\n").contains {
        $0.hasPrefix("/badminton.v1.Players/UpdateProfile ") && $0.hasSuffix(" [key]")
      })
    let first = try world.run([
      "call", "Players/UpdateProfile", #"{"nickname": "Ann A"}"#, "--idempotency-key", "rename-1",
    ])
    #expect(first.status == 0, "\(first.stderr)")
    let changed = try world.run(["call", "Players/UpdateProfile", #"{"nickname": "Ann B"}"#])
    #expect(changed.status == 0, "\(changed.stderr)")
    // The repeat answers the first call's profile, and the nickname stays as the second set it.
    let again = try world.run([
      "call", "Players/UpdateProfile", #"{"nickname": "Ann A"}"#, "--idempotency-key", "rename-1",
    ])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stdout == first.stdout)
    let profile = try world.run(["call", "Players/GetMyProfile"])
    #expect(try ProtoJSON.decode(profile.stdout, as: Profile.self).nickname == "Ann B")
    // The key with another request is refused.
    let reused = try world.run([
      "call", "Players/UpdateProfile", #"{"nickname": "Ann C"}"#, "--idempotency-key", "rename-1",
    ])
    #expect(reused.status != 0)
    #expect(reused.stderr.contains("IDEMPOTENCY_KEY_REUSED"))
  }

  @Test("bad JSON exits 65 with line and column; a refusal exits 2 with reason and message")
  func call_badInput() throws {
    let world = try World()
    let badJSON = try world.run(["call", "Accounts/Register", "{\n  \"phone\": }"])
    #expect(badJSON.status == 65)
    #expect(badJSON.stderr.contains("line 2, column 12"), "\(badJSON.stderr)")
    #expect(badJSON.stdout.isEmpty)

    let unknownField = try world.run(["call", "Accounts/Register", #"{"phon": "+861"}"#])
    #expect(unknownField.status == 65)
    #expect(unknownField.stderr.contains("line 1, column"))

    let request = #"{"phone": "12", "nickname": "x", "password": "secret pass", "selfLevel": 3}"#
    let refused = try world.run(["call", "Accounts/Register", request])
    #expect(refused.status == 2)
    #expect(refused.stderr.contains("INVALID_ARGUMENT"))
    #expect(refused.stderr.contains("PHONE_INVALID"))
    #expect(refused.stderr.contains("E.164"))
    let chinese = try world.run(["call", "Accounts/Register", request, "--locale", "zh-CN"])
    #expect(chinese.status == 2)
    #expect(chinese.stderr.contains("手机号须为 E.164 格式"), "\(chinese.stderr)")

    let nowhere = try world.run(["list", "--server", "127.0.0.1:1"])
    #expect(nowhere.status == 69)
    let usage = try world.run(["call"])
    #expect(usage.status == 64)
  }

  @Test("a refusal with a retry hint exits 4 and prints the wait under the message")
  func call_printsRetryHint() throws {
    let world = try World(serverArguments: ["--registrations-per-address-per-hour", "1"])
    func register(_ phone: String) throws -> (status: Int32, stdout: String, stderr: String) {
      try world.run([
        "call", "Accounts/Register",
        #"{"phone": "\#(phone)", "nickname": "x", "password": "secret pass", "selfLevel": 3}"#,
      ])
    }
    #expect(try register("+8613800138001").status == 0)
    let refused = try register("+8613800138002")
    #expect(refused.status == 4, "RESOURCE_EXHAUSTED is worth retrying later")
    #expect(refused.stderr.contains("REGISTRATION_RATE_LIMITED"), "\(refused.stderr)")
    let hint = refused.stderr.split(separator: "\n").first { $0.contains("retry after ") }
    let milliseconds = hint.flatMap { Int($0.split(separator: " ").dropLast().last ?? "") }
    // One registration an hour: the next is due an hour after the first.
    #expect((1...3_600_000).contains(milliseconds ?? 0), "\(refused.stderr)")
  }

  @Test("subscribe prints an event as a JSON line as it happens")
  func subscribe_receivesEvent() throws {
    let world = try World()
    let annID = try world.registerAndLogin("ann", phone: "+8613800000011")
    try world.registerAndLogin("bob", phone: "+8613800000012")

    let subscriber = Process()
    subscriber.executableURL = executable("badminton")
    subscriber.arguments = ["subscribe"]
    subscriber.environment = world.environment("ann")
    let output = Pipe()
    subscriber.standardOutput = output
    try subscriber.run()
    defer {
      subscriber.terminate()
      subscriber.waitUntilExit()
    }

    let sent = try world.run(
      ["call", "Friends/SendFriendRequest", #"{"userId": "\#(annID)"}"#], as: "bob")
    #expect(sent.status == 0, "\(sent.stderr)")

    var line: [UInt8] = []
    while let byte = output.fileHandleForReading.readData(ofLength: 1).first, byte != 0x0A {
      line.append(byte)
    }
    let event = try ProtoJSON.decode(String(decoding: line, as: UTF8.self), as: Event.self)
    guard case .friendRequestReceived(let request)? = event.body else {
      Issue.record("expected friend_request_received, got \(String(decoding: line, as: UTF8.self))")
      return
    }
    #expect(request.recipient.userID == annID)
    #expect(event.sequence > 0)

    // The subscriber is connected now (it printed a line): a later event arrives live, as the
    // next line, resumable from the first one's sequence.
    let carlID = try world.registerAndLogin("carl", phone: "+8613800000013")
    let later = try world.run(
      ["call", "Friends/SendFriendRequest", #"{"userId": "\#(annID)"}"#], as: "carl")
    #expect(later.status == 0, "\(later.stderr)")
    line = []
    while let byte = output.fileHandleForReading.readData(ofLength: 1).first, byte != 0x0A {
      line.append(byte)
    }
    let next = try ProtoJSON.decode(String(decoding: line, as: UTF8.self), as: Event.self)
    guard case .friendRequestReceived(let second)? = next.body else {
      Issue.record("expected a second event, got \(String(decoding: line, as: UTF8.self))")
      return
    }
    #expect(second.sender.userID == carlID)
    #expect(next.sequence == event.sequence + 1)
  }

  @Test("demo plays the main path to the end, twice on the same server")
  func demo_runs() throws {
    let world = try World()
    for _ in 0..<2 {
      let result = try world.run(["demo"])
      #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
      for step in 1...10 { #expect(result.stdout.contains("\n\(step). ")) }
      #expect(result.stdout.contains("Done."))
    }
  }
}
