import BadmintonRPC
import NIOCore
import PropertyBased
import Testing

/// A codec of no protobuf at all: a message is its text as UTF-8, and text that is not UTF-8 is
/// refused; it stands for another product's messages.
private struct Text: Sendable, Equatable {
  var value: String
}

private struct TextSerializer: MessageSerializer {
  func serialize<Bytes: RPCContiguousBytes>(_ message: Text) -> Bytes {
    Bytes(message.value.utf8)
  }
}

private struct TextDeserializer: MessageDeserializer {
  struct NotUTF8: Error {}

  func deserialize<Bytes: RPCContiguousBytes>(_ bytes: Bytes) throws -> Text {
    let decoded = bytes.withUnsafeBytes { String(validating: $0, as: UTF8.self) }
    guard let decoded else { throw NotUTF8() }
    return Text(value: decoded)
  }
}

/// A service of `Text` messages: `Shout` answers the request in capitals, `Spell` streams its
/// characters.
private struct TextService: RPCService {
  static let shout = MethodDescriptor<Text, Text>(
    service: "example.v1.Text", method: "Shout", kind: .unary, idempotent: true,
    requiresAuthentication: false, requestType: "example.v1.Text", responseType: "example.v1.Text")
  static let spell = MethodDescriptor<Text, Text>(
    service: "example.v1.Text", method: "Spell", kind: .serverStreaming, idempotent: true,
    requiresAuthentication: false, requestType: "example.v1.Text", responseType: "example.v1.Text")
  static let garble = MethodDescriptor<Text, Text>(
    service: "example.v1.Text", method: "Garble", kind: .unary, idempotent: true,
    requiresAuthentication: false, requestType: "example.v1.Text", responseType: "example.v1.Text")

  func registerMethods(in registry: inout HandlerRegistry) {
    registry.register(
      Self.shout, deserializer: TextDeserializer(), serializer: TextSerializer(),
      inline: { request, _ in Text(value: request.value.uppercased()) })
    registry.register(
      Self.spell, deserializer: TextDeserializer(), serializer: TextSerializer()
    ) { request, _, responses in
      for character in request.value { try await responses.write(Text(value: String(character))) }
    }
    // Answers bytes that are not UTF-8: the client's deserializer refuses them.
    registry.register(
      Self.garble, deserializer: TextDeserializer(), serializer: GarbleSerializer()
    ) { request, _ in request }
  }
}

private struct GarbleSerializer: MessageSerializer {
  func serialize<Bytes: RPCContiguousBytes>(_ message: Text) -> Bytes {
    Bytes([0xFF, 0xFE])
  }
}

@Suite("The codec protocol")
struct CodingTests {
  @Test("the protobuf codec's bytes are protoc-c's, in an array and in a ByteBuffer")
  func protobufCodec_matchesProtocC() async throws {
    await propertyCheck(count: 200, input: MessageGen.envelopes) { envelope in
      let serializer = ProtobufSerializer<Envelope>()
      let deserializer = ProtobufDeserializer<Envelope>()
      let array: [UInt8] = serializer.serialize(envelope)
      let buffer: ByteBuffer = serializer.serialize(envelope)
      #expect(array == envelope.serializedBytes())
      #expect(Array(buffer.readableBytesView) == array)
      #expect((try? deserializer.deserialize(array)) == envelope)
      #expect((try? deserializer.deserialize(buffer)) == envelope)
      var appended = ByteBuffer(bytes: [7])
      envelope.serialize(into: &appended)
      #expect(Array(appended.readableBytesView) == [7] + array)
      appended.moveReaderIndex(forwardBy: 1)
      #expect((try? Envelope(serializedBytes: appended)) == envelope)
    }
  }

  @Test("the protobuf deserializer refuses a string holding U+0000 with its field")
  func protobufDeserializer_refusesNUL() throws {
    // HealthCheckRequest{service: "a\0b"}
    let bytes: [UInt8] = [0x0A, 0x03, 0x61, 0x00, 0x62]
    let error = #expect(throws: MessageDecodingError.self) {
      _ = try ProtobufDeserializer<HealthCheckRequest>().deserialize(bytes)
    }
    #expect(error?.fieldWithNUL == "service")
  }

  @Test("a method descriptor of protobuf messages names them by their descriptors")
  func descriptor_namesProtobufMessages() {
    #expect(Health.check.requestType == "badminton.rpc.v1.HealthCheckRequest")
    #expect(Health.check.responseType == "badminton.rpc.v1.HealthCheckResponse")
    #expect(TextService.shout.info.requestType == "example.v1.Text")
  }

  @Test("a service of other messages is served and called through its own codec")
  func otherCodec_servedAndCalled() async throws {
    try await withTestServer(services: { _ in [TextService()] }) { _, port, _ in
      try await withTestClient(port: port) { client in
        let shouted = try await client.unary(
          TextService.shout, Text(value: "smash"), serializer: TextSerializer(),
          deserializer: TextDeserializer())
        #expect(shouted == Text(value: "SMASH"))

        var letters: [String] = []
        for try await letter in try await client.serverStreaming(
          TextService.spell, Text(value: "net"), serializer: TextSerializer(),
          deserializer: TextDeserializer())
        {
          letters.append(letter.value)
        }
        #expect(letters == ["n", "e", "t"])

        // The server's deserializer refuses the request: INVALID_ARGUMENT naming the type.
        let refused = await #expect(throws: RPCError.self) {
          _ = try await client.unary(
            path: TextService.shout.path, payload: [0xC3], idempotent: true)
        }
        #expect(refused?.code == .invalidArgument)
        #expect(refused?.message.en.contains("example.v1.Text") == true)

        // The client's deserializer refuses the answer: RESPONSE_MALFORMED.
        let malformed = await #expect(throws: RPCError.self) {
          _ = try await client.unary(
            TextService.garble, Text(value: "x"), serializer: TextSerializer(),
            deserializer: TextDeserializer())
        }
        #expect(malformed?.reason == RPCError.responseMalformed("").reason)

        let methods = try await client.reflection.listMethods().methods
        #expect(methods.contains { $0.path == "/example.v1.Text/Shout" })
      }
    }
  }

  @Test("cancelling a call made on the client's event loop sends CANCEL, before or after it starts")
  func callOnTheEventLoop_cancels() async throws {
    try await withTestServer { _, port, probe in
      try await withTestClient(port: port) { client in
        let call = Task(executorPreference: client.taskExecutor) {
          try await client.unary(TestService.unary, .init(service: "gate:never"))
        }
        #expect(await probe.wait { $0.started == 1 })
        call.cancel()
        let error = await #expect(throws: RPCError.self) { _ = try await call.value }
        #expect(error?.code == .cancelled)
        #expect(await probe.wait { $0.cancelled == 1 })

        // A task cancelled before its call starts does not start it.
        let early = Task(executorPreference: client.taskExecutor) {
          withUnsafeCurrentTask { $0?.cancel() }
          return try await client.unary(TestService.unary, .init(service: "gate:never"))
        }
        let earlyError = await #expect(throws: RPCError.self) { _ = try await early.value }
        #expect(earlyError?.code == .cancelled)
        let status = try await client.health.check().status
        #expect(status == .serving)
        #expect(probe.started == 1)
      }
    }
  }

  @Test("calls made on the client's event loop are answered there")
  func callsOnTheEventLoop_areAnswered() async throws {
    try await withTestServer { _, port, _ in
      try await withTestClient(port: port) { client in
        try await withTaskExecutorPreference(client.taskExecutor) {
          try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<50 {
              group.addTask {
                try await client.unary(
                  TestService.unary, HealthCheckRequest(service: "echo:\(index)")
                ).service
              }
            }
            var answers: Set<String> = []
            for try await answer in group { answers.insert(answer) }
            #expect(answers == Set((0..<50).map { "\($0)" }))
          }
        }
      }
    }
  }
}
