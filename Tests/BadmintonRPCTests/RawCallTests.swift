import BadmintonRPC
import Testing

@Suite("Calls by path with encoded messages")
struct RawCallTests {
  @Test("a unary call by path sends the encoded request and returns the encoded answer")
  func unary_byPath() async throws {
    try await withTestServer { _, port, _ in
      try await withTestClient(port: port) { client in
        let request = HealthCheckRequest(service: "echo:by path").serializedBytes()
        let answer = try await client.unary(
          path: TestService.unary.path, payload: request, idempotent: false)
        #expect(try HealthCheckRequest(serializedBytes: answer).service == "by path")
        let failed = await #expect(throws: RPCError.self) {
          _ = try await client.unary(
            path: TestService.unary.path,
            payload: HealthCheckRequest(service: "fail")
              .serializedBytes(), idempotent: false)
        }
        #expect(failed?.reason == "TEST_FAILURE")
        let unknown = await #expect(throws: RPCError.self) {
          _ = try await client.unary(path: "/nowhere.V1/Nothing", payload: [], idempotent: true)
        }
        #expect(unknown?.code == .unimplemented)
      }
    }
  }

  @Test("a server-streaming call by path yields each encoded answer in order")
  func streaming_byPath() async throws {
    try await withTestServer { _, port, _ in
      try await withTestClient(port: port) { client in
        var received: [String] = []
        for try await payload in try await client.serverStreaming(
          path: TestService.stream.path,
          payload: HealthCheckRequest(service: "count:4").serializedBytes(), idempotent: true)
        {
          received.append(try HealthCheckRequest(serializedBytes: payload).service)
        }
        #expect(received == ["0", "1", "2", "3"])
      }
    }
  }
}
