import BadmintonAPI
import BadmintonRPC
import BadmintonServices
import BadmintonStore
import NIOCore
import StoreTestSupport
import Testing

@Suite("Contract between Proto/, the production server and the client stubs")
struct ContractTests {
  struct Method: Hashable {
    let path: String
    let requestType: String
    let responseType: String
  }

  private var protoMethods: Set<Method> {
    Set(
      (RPCContract.services + APIContract.services).flatMap { service in
        service.methods.map {
          Method(
            path: "/\(service.fullName)/\($0.name)", requestType: $0.requestType,
            responseType: $0.responseType)
        }
      })
  }

  private func methods(_ infos: [MethodInfo]) -> Set<Method> {
    Set(
      infos.map {
        Method(path: $0.path, requestType: $0.requestType, responseType: $0.responseType)
      })
  }

  @Test(
    "the server as badminton-server builds it registers every method of every .proto service",
    arguments: StoreKind.allCases)
  func productionServer_matchesProto(kind: StoreKind) async throws {
    try await withStore(kind) { store in
      let players = try await PlayerServices.start(
        store: store, configuration: PlayerServicesConfiguration(passwordCost: .testing))
      let server = RPCServer(services: players.services, authenticator: players.authenticator)
      #expect(methods(server.methods) == protoMethods)
    }
  }

  @Test("the client stubs expose every method of every .proto service")
  func stubs_matchProto() {
    let stubs = [Health.descriptor, Reflection.descriptor] + BadmintonAPI.services
    #expect(methods(stubs.flatMap(\.methods)) == protoMethods)
    #expect(
      Set(stubs.map(\.name)) == Set((RPCContract.services + APIContract.services).map(\.fullName)))
  }
}
