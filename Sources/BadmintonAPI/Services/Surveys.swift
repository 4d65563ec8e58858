public import BadmintonRPC

/// Surveys (`badminton.v1.Surveys`): every method needs authentication.
public enum Surveys {
  /// The service's full name.
  public static let serviceName = "badminton.v1.Surveys"

  /// `CompleteMatch`: Records the result of a confirmed match the caller played, at or after its start, and opens one survey per participant. Once only: a later call returns the recorded match unchanged.
  public static let completeMatch = MethodDescriptor<CompleteMatchRequest, Match>(
    service: serviceName, method: "CompleteMatch", kind: .unary, idempotent: true,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `ListPendingSurveys`: The caller's open surveys.
  public static let listPendingSurveys = MethodDescriptor<
    ListPendingSurveysRequest, ListPendingSurveysResponse
  >(
    service: serviceName, method: "ListPendingSurveys", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `SubmitSurvey`: Submits the caller's survey of a match: ALREADY_EXISTS / SURVEY_ALREADY_SUBMITTED the second time, FAILED_PRECONDITION / SURVEY_EXPIRED from 48 hours after completion.
  public static let submitSurvey = MethodDescriptor<SubmitSurveyRequest, Survey>(
    service: serviceName, method: "SubmitSurvey", kind: .unary, idempotent: false,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `GetReputation`: A player's reputation: the aggregates of every survey that counted.
  public static let getReputation = MethodDescriptor<GetReputationRequest, Reputation>(
    service: serviceName, method: "GetReputation", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// The service as its stubs expose it.
  public static let descriptor = ServiceDescriptor(
    name: serviceName,
    methods: [completeMatch.info, listPendingSurveys.info, submitSurvey.info, getReputation.info])

  /// What a `badminton.v1.Surveys` service implements.
  public protocol ServiceProtocol: RPCService {
    /// Answers `CompleteMatch`.
    func completeMatch(_ request: CompleteMatchRequest, context: ServerContext) async throws
      -> Match
    /// Answers `ListPendingSurveys`.
    func listPendingSurveys(_ request: ListPendingSurveysRequest, context: ServerContext)
      async throws -> ListPendingSurveysResponse
    /// Answers `SubmitSurvey`.
    func submitSurvey(_ request: SubmitSurveyRequest, context: ServerContext) async throws -> Survey
    /// Answers `GetReputation`.
    func getReputation(_ request: GetReputationRequest, context: ServerContext) async throws
      -> Reputation
  }

  /// The typed client of `badminton.v1.Surveys`.
  public struct Client: Sendable {
    private let client: RPCClient

    /// A stub that calls through `client`.
    public init(client: RPCClient) { self.client = client }

    /// Calls `CompleteMatch`.
    public func completeMatch(_ request: CompleteMatchRequest, options: CallOptions = CallOptions())
      async throws -> Match
    {
      try await client.unary(Surveys.completeMatch, request, options: options)
    }

    /// Calls `ListPendingSurveys`.
    public func listPendingSurveys(
      _ request: ListPendingSurveysRequest, options: CallOptions = CallOptions()
    ) async throws -> ListPendingSurveysResponse {
      try await client.unary(Surveys.listPendingSurveys, request, options: options)
    }

    /// Calls `SubmitSurvey`.
    public func submitSurvey(_ request: SubmitSurveyRequest, options: CallOptions = CallOptions())
      async throws -> Survey
    {
      try await client.unary(Surveys.submitSurvey, request, options: options)
    }

    /// Calls `GetReputation`.
    public func getReputation(_ request: GetReputationRequest, options: CallOptions = CallOptions())
      async throws -> Reputation
    {
      try await client.unary(Surveys.getReputation, request, options: options)
    }

  }
}

extension Surveys.ServiceProtocol {
  /// Adds every method of `badminton.v1.Surveys` to `registry`.
  public func registerMethods(in registry: inout HandlerRegistry) {
    registry.register(Surveys.completeMatch) { request, context in
      try await self.completeMatch(request, context: context)
    }
    registry.register(Surveys.listPendingSurveys) { request, context in
      try await self.listPendingSurveys(request, context: context)
    }
    registry.register(Surveys.submitSurvey) { request, context in
      try await self.submitSurvey(request, context: context)
    }
    registry.register(Surveys.getReputation) { request, context in
      try await self.getReputation(request, context: context)
    }
  }
}

extension RPCClient {
  /// The typed client of `badminton.v1.Surveys`.
  public var surveys: Surveys.Client { Surveys.Client(client: self) }
}
