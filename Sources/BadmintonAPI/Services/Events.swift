public import BadmintonRPC

/// The live event stream, `badminton.v1.Events`.
public enum Events {
  /// The service's full name.
  public static let serviceName = "badminton.v1.Events"

  /// `Subscribe`: stored events after a cursor, then new ones as they happen.
  public static let subscribe = MethodDescriptor<SubscribeRequest, Event>(
    service: serviceName, method: "Subscribe", kind: .serverStreaming, idempotent: true,
    requiresAuthentication: true)

  /// The service as its stubs expose it.
  public static let descriptor = ServiceDescriptor(name: serviceName, methods: [subscribe.info])

  /// What an events service implements.
  public protocol ServiceProtocol: RPCService {
    /// Serves `Subscribe`.
    func subscribe(
      _ request: SubscribeRequest, context: ServerContext, events: ResponseStreamWriter<Event>
    ) async throws
  }

  /// The typed client of the events service.
  public struct Client: Sendable {
    private let client: RPCClient

    /// A stub that calls through `client`.
    public init(client: RPCClient) { self.client = client }

    /// Calls `Subscribe`: the caller's events, in sequence order, as an `AsyncSequence`.
    public func subscribe(
      _ request: SubscribeRequest = SubscribeRequest(), options: CallOptions = CallOptions()
    ) async throws -> ResponseStream<Event> {
      try await client.serverStreaming(Events.subscribe, request, options: options)
    }
  }
}

extension Events.ServiceProtocol {
  public func registerMethods(in registry: inout HandlerRegistry) {
    registry.register(Events.subscribe) { request, context, writer in
      try await self.subscribe(request, context: context, events: writer)
    }
  }
}

extension RPCClient {
  /// The typed client of the events service.
  public var events: Events.Client { Events.Client(client: self) }
}
