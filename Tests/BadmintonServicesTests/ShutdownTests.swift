import BadmintonAPI
import BadmintonRPC
import BadmintonServices
import BadmintonStore
import Logging
import NIOCore
import StoreTestSupport
import Testing

@Suite("Graceful shutdown of the services")
struct ShutdownTests {
  @Test(
    "an open Events/Subscribe stream ends with SERVER_SHUTTING_DOWN when the drain starts",
    arguments: StoreKind.allCases)
  func drain_endsEventStreams(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let clock = ManualClock()
      let administrator = try await store.createPlayer(
        NewPlayer(
          phone: PlayerWorld.administratorPhone, nickname: "Admin",
          password: try await PasswordHasher(cost: .testing).digest(
            PlayerWorld.administratorPassword),
          selfLevel: 5, locale: "en", joinedAtUnixMs: clock.nowUnixMs()))
      let players = try await PlayerServices.start(
        store: store,
        configuration: PlayerServicesConfiguration(
          passwordCost: .testing, administratorIDs: [administrator.id]),
        clock: clock)
      var logger = Logger(label: "test.server")
      logger.logLevel = .critical
      // A grace period far longer than the test: a stream left to it would end otherwise.
      let server = RPCServer(
        configuration: ServerConfiguration(
          port: 0, wire: WireConfiguration(maximumBodySize: 6 * 1024 * 1024),
          shutdownGracePeriod: .seconds(600)),
        services: players.services, authenticator: players.authenticator, logger: logger)
      let running = Task { try await server.run() }
      let port = try await server.localAddress().port!
      let client = RPCClient(host: "127.0.0.1", port: port)
      let world = PlayerWorld(
        client: client, store: store, clock: clock, port: port, housekeeping: players.housekeeping,
        administration: players.administration)

      let owner = try await world.player()
      let admin = try await world.administrator()
      var events = try await client.events.subscribe(options: owner.options).makeAsyncIterator()
      // An event received shows the stream is open on the server.
      let request = try await client.players.submitVerification(
        .init(kind: .regionalChampionship, document: pngDocument), options: owner.options)
      _ = try await client.players.reviewVerification(
        .init(verificationID: request.id, approve: true, note: "ok"), options: admin.options)
      #expect(try await events.next()?.sequence == 1)

      server.beginGracefulShutdown()
      let ended = await rpcError {
        while try await events.next() != nil {}
      }
      #expect(ended?.reason == "SERVER_SHUTTING_DOWN")
      await client.close()
      try await running.value
    }
  }
}
