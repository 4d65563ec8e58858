public import BadmintonRPC

/// The time-slot matching service, `badminton.v1.Matching`: every method needs authentication.
public enum Matching {
  /// The service's full name.
  public static let serviceName = "badminton.v1.Matching"

  /// `PostAvailability`: posts a stretch of time the caller can play on one day.
  public static let postAvailability = MethodDescriptor<PostAvailabilityRequest, Availability>(
    service: serviceName, method: "PostAvailability", kind: .unary, idempotent: false,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `CancelAvailability`: withdraws one of the caller's availability.
  public static let cancelAvailability = MethodDescriptor<
    CancelAvailabilityRequest, CancelAvailabilityResponse
  >(
    service: serviceName, method: "CancelAvailability", kind: .unary, idempotent: true,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `ListMyAvailability`: the caller's active availability, earliest start first.
  public static let listMyAvailability = MethodDescriptor<
    ListMyAvailabilityRequest, ListMyAvailabilityResponse
  >(
    service: serviceName, method: "ListMyAvailability", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `SaveRecurringSlots`: replaces the caller's weekly recurring slots.
  public static let saveRecurringSlots = MethodDescriptor<
    SaveRecurringSlotsRequest, RecurringSlots
  >(
    service: serviceName, method: "SaveRecurringSlots", kind: .unary, idempotent: true,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `GetRecurringSlots`: the caller's weekly recurring slots.
  public static let getRecurringSlots = MethodDescriptor<GetRecurringSlotsRequest, RecurringSlots>(
    service: serviceName, method: "GetRecurringSlots", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `FindMatches`: one page of partners for an availability, or suggestions when none fit.
  public static let findMatches = MethodDescriptor<FindMatchesRequest, FindMatchesResponse>(
    service: serviceName, method: "FindMatches", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `ProposeMatch`: invites the partners the caller chose to play at the time all can.
  public static let proposeMatch = MethodDescriptor<ProposeMatchRequest, Proposal>(
    service: serviceName, method: "ProposeMatch", kind: .unary, idempotent: false,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `RespondToProposal`: accepts or declines a proposal the caller is invited to.
  public static let respondToProposal = MethodDescriptor<RespondToProposalRequest, Proposal>(
    service: serviceName, method: "RespondToProposal", kind: .unary, idempotent: false,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `GetProposal`: one proposal the caller is part of.
  public static let getProposal = MethodDescriptor<GetProposalRequest, Proposal>(
    service: serviceName, method: "GetProposal", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `GetMatch`: one match the caller is part of.
  public static let getMatch = MethodDescriptor<GetMatchRequest, Match>(
    service: serviceName, method: "GetMatch", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `ListMyMatches`: the caller's upcoming matches, soonest first, or past ones, latest first.
  public static let listMyMatches = MethodDescriptor<ListMyMatchesRequest, ListMyMatchesResponse>(
    service: serviceName, method: "ListMyMatches", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `CancelMatch`: cancels a confirmed match the caller is part of.
  public static let cancelMatch = MethodDescriptor<CancelMatchRequest, Match>(
    service: serviceName, method: "CancelMatch", kind: .unary, idempotent: true,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// The service as its stubs expose it.
  public static let descriptor = ServiceDescriptor(
    name: serviceName,
    methods: [
      postAvailability.info, cancelAvailability.info, listMyAvailability.info,
      saveRecurringSlots.info, getRecurringSlots.info, findMatches.info, proposeMatch.info,
      respondToProposal.info, getProposal.info, getMatch.info, listMyMatches.info,
      cancelMatch.info,
    ])

  /// What a matching service implements.
  public protocol ServiceProtocol: RPCService {
    /// Answers `PostAvailability`.
    func postAvailability(_ request: PostAvailabilityRequest, context: ServerContext)
      async throws -> Availability
    /// Answers `CancelAvailability`.
    func cancelAvailability(_ request: CancelAvailabilityRequest, context: ServerContext)
      async throws -> CancelAvailabilityResponse
    /// Answers `ListMyAvailability`.
    func listMyAvailability(_ request: ListMyAvailabilityRequest, context: ServerContext)
      async throws -> ListMyAvailabilityResponse
    /// Answers `SaveRecurringSlots`.
    func saveRecurringSlots(_ request: SaveRecurringSlotsRequest, context: ServerContext)
      async throws -> RecurringSlots
    /// Answers `GetRecurringSlots`.
    func getRecurringSlots(_ request: GetRecurringSlotsRequest, context: ServerContext)
      async throws -> RecurringSlots
    /// Answers `FindMatches`, from memory: served inline on the connection's event loop.
    func findMatches(_ request: FindMatchesRequest, context: ServerContext) throws
      -> FindMatchesResponse
    /// Answers `ProposeMatch`.
    func proposeMatch(_ request: ProposeMatchRequest, context: ServerContext) async throws
      -> Proposal
    /// Answers `RespondToProposal`.
    func respondToProposal(_ request: RespondToProposalRequest, context: ServerContext)
      async throws -> Proposal
    /// Answers `GetProposal`.
    func getProposal(_ request: GetProposalRequest, context: ServerContext) async throws
      -> Proposal
    /// Answers `GetMatch`.
    func getMatch(_ request: GetMatchRequest, context: ServerContext) async throws -> Match
    /// Answers `ListMyMatches`.
    func listMyMatches(_ request: ListMyMatchesRequest, context: ServerContext) async throws
      -> ListMyMatchesResponse
    /// Answers `CancelMatch`.
    func cancelMatch(_ request: CancelMatchRequest, context: ServerContext) async throws -> Match
  }

  /// The typed client of the matching service.
  public struct Client: Sendable {
    private let client: RPCClient

    /// A stub that calls through `client`.
    public init(client: RPCClient) { self.client = client }

    /// Calls `PostAvailability`.
    public func postAvailability(
      _ request: PostAvailabilityRequest, options: CallOptions = CallOptions()
    ) async throws -> Availability {
      try await client.unary(Matching.postAvailability, request, options: options)
    }

    /// Calls `CancelAvailability`.
    public func cancelAvailability(
      _ request: CancelAvailabilityRequest, options: CallOptions = CallOptions()
    ) async throws -> CancelAvailabilityResponse {
      try await client.unary(Matching.cancelAvailability, request, options: options)
    }

    /// Calls `ListMyAvailability`.
    public func listMyAvailability(
      _ request: ListMyAvailabilityRequest = ListMyAvailabilityRequest(),
      options: CallOptions = CallOptions()
    ) async throws -> ListMyAvailabilityResponse {
      try await client.unary(Matching.listMyAvailability, request, options: options)
    }

    /// Calls `SaveRecurringSlots`.
    public func saveRecurringSlots(
      _ request: SaveRecurringSlotsRequest, options: CallOptions = CallOptions()
    ) async throws -> RecurringSlots {
      try await client.unary(Matching.saveRecurringSlots, request, options: options)
    }

    /// Calls `GetRecurringSlots`.
    public func getRecurringSlots(
      _ request: GetRecurringSlotsRequest = GetRecurringSlotsRequest(),
      options: CallOptions = CallOptions()
    ) async throws -> RecurringSlots {
      try await client.unary(Matching.getRecurringSlots, request, options: options)
    }

    /// Calls `FindMatches`.
    public func findMatches(_ request: FindMatchesRequest, options: CallOptions = CallOptions())
      async throws -> FindMatchesResponse
    {
      try await client.unary(Matching.findMatches, request, options: options)
    }

    /// Calls `ProposeMatch`.
    public func proposeMatch(_ request: ProposeMatchRequest, options: CallOptions = CallOptions())
      async throws -> Proposal
    {
      try await client.unary(Matching.proposeMatch, request, options: options)
    }

    /// Calls `RespondToProposal`.
    public func respondToProposal(
      _ request: RespondToProposalRequest, options: CallOptions = CallOptions()
    ) async throws -> Proposal {
      try await client.unary(Matching.respondToProposal, request, options: options)
    }

    /// Calls `GetProposal`.
    public func getProposal(_ request: GetProposalRequest, options: CallOptions = CallOptions())
      async throws -> Proposal
    {
      try await client.unary(Matching.getProposal, request, options: options)
    }

    /// Calls `GetMatch`.
    public func getMatch(_ request: GetMatchRequest, options: CallOptions = CallOptions())
      async throws -> Match
    {
      try await client.unary(Matching.getMatch, request, options: options)
    }

    /// Calls `ListMyMatches`.
    public func listMyMatches(
      _ request: ListMyMatchesRequest = ListMyMatchesRequest(),
      options: CallOptions = CallOptions()
    ) async throws -> ListMyMatchesResponse {
      try await client.unary(Matching.listMyMatches, request, options: options)
    }

    /// Calls `CancelMatch`.
    public func cancelMatch(_ request: CancelMatchRequest, options: CallOptions = CallOptions())
      async throws -> Match
    {
      try await client.unary(Matching.cancelMatch, request, options: options)
    }
  }
}

extension Matching.ServiceProtocol {
  /// Adds every method of the matching service to `registry`.
  public func registerMethods(in registry: inout HandlerRegistry) {
    registry.register(Matching.postAvailability) { request, context in
      try await self.postAvailability(request, context: context)
    }
    registry.register(Matching.cancelAvailability) { request, context in
      try await self.cancelAvailability(request, context: context)
    }
    registry.register(Matching.listMyAvailability) { request, context in
      try await self.listMyAvailability(request, context: context)
    }
    registry.register(Matching.saveRecurringSlots) { request, context in
      try await self.saveRecurringSlots(request, context: context)
    }
    registry.register(Matching.getRecurringSlots) { request, context in
      try await self.getRecurringSlots(request, context: context)
    }
    registry.register(
      Matching.findMatches,
      inline: { request, context in
        try self.findMatches(request, context: context)
      })
    registry.register(Matching.proposeMatch) { request, context in
      try await self.proposeMatch(request, context: context)
    }
    registry.register(Matching.respondToProposal) { request, context in
      try await self.respondToProposal(request, context: context)
    }
    registry.register(Matching.getProposal) { request, context in
      try await self.getProposal(request, context: context)
    }
    registry.register(Matching.getMatch) { request, context in
      try await self.getMatch(request, context: context)
    }
    registry.register(Matching.listMyMatches) { request, context in
      try await self.listMyMatches(request, context: context)
    }
    registry.register(Matching.cancelMatch) { request, context in
      try await self.cancelMatch(request, context: context)
    }
  }
}

extension RPCClient {
  /// The typed client of the matching service.
  public var matching: Matching.Client { Matching.Client(client: self) }
}
