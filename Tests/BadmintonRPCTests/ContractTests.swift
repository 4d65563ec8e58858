import BadmintonRPC
import NIOCore
import Testing

/// The built-in services (`badminton.rpc.v1`) against their `.proto`; the product's services are
/// checked the same way in BadmintonServicesTests.
@Suite("Contract between Proto/badminton/rpc/v1, the server and the client stubs")
struct ContractTests {
  struct Method: Hashable, CustomStringConvertible {
    let path: String
    let requestType: String
    let responseType: String
    var description: String { "\(path)(\(requestType)) -> \(responseType)" }
  }

  /// What protoc-c generated from the built-in services' `.proto` files.
  private var protoMethods: Set<Method> {
    Set(
      RPCContract.services.flatMap { service in
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

  @Test("the server registers exactly the methods the .proto services declare")
  func server_matchesProto() {
    let server = RPCServer(services: [])
    #expect(methods(server.methods) == protoMethods)
    #expect(!protoMethods.isEmpty)
  }

  @Test("the client stubs expose exactly the methods the .proto services declare")
  func stubs_matchProto() {
    let stubs = [Health.descriptor, Reflection.descriptor]
    #expect(methods(stubs.flatMap(\.methods)) == protoMethods)
    #expect(Set(stubs.map(\.name)) == Set(RPCContract.services.map(\.fullName)))
  }

  @Test("reflection over the wire lists the same methods")
  func reflection_matchesProto() async throws {
    let server = RPCServer(configuration: ServerConfiguration(port: 0), services: [])
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await server.run() }
      let port = try await server.localAddress().port!
      try await withTestClient(port: port) { client in
        let listed = try await client.reflection.listMethods().methods
        #expect(methods(listed) == protoMethods)
      }
      group.cancelAll()
    }
  }

  @Test("every message type generated from Proto/ has its descriptor")
  func everyMessage_hasDescriptor() {
    let names = Set(RPCContract.messageTypes.map { $0.fullName })
    for type in [
      Envelope.self, Metadata.self, Status.self, FieldViolation.self, HealthCheckRequest.self,
      HealthCheckResponse.self, ListMethodsRequest.self, ListMethodsResponse.self, MethodInfo.self,
    ] as [any ProtobufMessage.Type] {
      #expect(names.contains(type.fullName))
    }
    #expect(names.count == 9)
  }
}
