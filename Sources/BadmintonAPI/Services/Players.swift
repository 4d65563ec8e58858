public import BadmintonRPC

/// The players service, `badminton.v1.Players`: every method needs authentication.
public enum Players {
  /// The service's full name.
  public static let serviceName = "badminton.v1.Players"

  /// `GetProfile`: one player's profile.
  public static let getProfile = MethodDescriptor<GetProfileRequest, Profile>(
    service: serviceName, method: "GetProfile", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `GetMyProfile`: the caller's own profile, with the phone number.
  public static let getMyProfile = MethodDescriptor<GetMyProfileRequest, Profile>(
    service: serviceName, method: "GetMyProfile", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `UpdateProfile`: changes the caller's profile.
  public static let updateProfile = MethodDescriptor<UpdateProfileRequest, Profile>(
    service: serviceName, method: "UpdateProfile", kind: .unary, idempotent: true,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `UpdateLocation`: stores the caller's location.
  public static let updateLocation = MethodDescriptor<
    UpdateLocationRequest, UpdateLocationResponse
  >(
    service: serviceName, method: "UpdateLocation", kind: .unary, idempotent: true,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `NearbyPlayers`: one page of players near the caller, nearest first.
  public static let nearbyPlayers = MethodDescriptor<NearbyPlayersRequest, NearbyPlayersResponse>(
    service: serviceName, method: "NearbyPlayers", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// The most document bytes one request or answer carries: a `SubmitVerification` sent whole,
  /// an `UploadDocumentPiece` piece, a `GetVerificationDocument` part.
  public static let maximumDocumentPieceBytes = 60_000

  /// `UploadDocumentPiece`: stores one piece of a document larger than one request may carry.
  public static let uploadDocumentPiece = MethodDescriptor<
    UploadDocumentPieceRequest, DocumentUpload
  >(
    // A first piece sent again starts another upload; a later piece sent again is acknowledged.
    service: serviceName, method: "UploadDocumentPiece", kind: .unary, idempotent: false,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `SubmitVerification`: submits a championship document for review.
  public static let submitVerification = MethodDescriptor<SubmitVerificationRequest, Verification>(
    service: serviceName, method: "SubmitVerification", kind: .unary, idempotent: false,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `ListMyVerifications`: the caller's verification requests, newest first.
  public static let listMyVerifications = MethodDescriptor<
    ListMyVerificationsRequest, ListVerificationsResponse
  >(
    service: serviceName, method: "ListMyVerifications", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `ListPendingVerifications`: every pending verification request; administrators only.
  public static let listPendingVerifications = MethodDescriptor<
    ListPendingVerificationsRequest, ListVerificationsResponse
  >(
    service: serviceName, method: "ListPendingVerifications", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `ReviewVerification`: approves or rejects a verification request; administrators only.
  public static let reviewVerification = MethodDescriptor<ReviewVerificationRequest, Verification>(
    service: serviceName, method: "ReviewVerification", kind: .unary, idempotent: false,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// `GetVerificationDocument`: the evidence of a request, for administrators and its owner.
  public static let getVerificationDocument = MethodDescriptor<
    GetVerificationDocumentRequest, VerificationDocument
  >(
    service: serviceName, method: "GetVerificationDocument", kind: .unary, idempotent: true,
    requiresAuthentication: true)

  /// `SetVerifiedLevel`: raises the caller's self level to one a verification allows.
  public static let setVerifiedLevel = MethodDescriptor<SetVerifiedLevelRequest, Profile>(
    service: serviceName, method: "SetVerifiedLevel", kind: .unary, idempotent: true,
    requiresAuthentication: true, takesIdempotencyKey: true)

  /// The service as its stubs expose it.
  public static let descriptor = ServiceDescriptor(
    name: serviceName,
    methods: [
      getProfile.info, getMyProfile.info, updateProfile.info, updateLocation.info,
      nearbyPlayers.info, uploadDocumentPiece.info, submitVerification.info,
      listMyVerifications.info,
      listPendingVerifications.info, getVerificationDocument.info, reviewVerification.info,
      setVerifiedLevel.info,
    ])

  /// What a players service implements.
  public protocol ServiceProtocol: RPCService {
    /// Answers `GetProfile`.
    func getProfile(_ request: GetProfileRequest, context: ServerContext) async throws -> Profile
    /// Answers `GetMyProfile`, from memory: served inline on the connection's event loop.
    func getMyProfile(_ request: GetMyProfileRequest, context: ServerContext) throws
      -> Profile
    /// Answers `UpdateProfile`.
    func updateProfile(_ request: UpdateProfileRequest, context: ServerContext) async throws
      -> Profile
    /// Answers `UpdateLocation`.
    func updateLocation(_ request: UpdateLocationRequest, context: ServerContext) async throws
      -> UpdateLocationResponse
    /// Answers `NearbyPlayers`.
    func nearbyPlayers(_ request: NearbyPlayersRequest, context: ServerContext) async throws
      -> NearbyPlayersResponse
    /// Answers `UploadDocumentPiece`.
    func uploadDocumentPiece(_ request: UploadDocumentPieceRequest, context: ServerContext)
      async throws -> DocumentUpload
    /// Answers `SubmitVerification`.
    func submitVerification(_ request: SubmitVerificationRequest, context: ServerContext)
      async throws -> Verification
    /// Answers `ListMyVerifications`.
    func listMyVerifications(_ request: ListMyVerificationsRequest, context: ServerContext)
      async throws -> ListVerificationsResponse
    /// Answers `ListPendingVerifications`.
    func listPendingVerifications(
      _ request: ListPendingVerificationsRequest, context: ServerContext
    ) async throws -> ListVerificationsResponse
    /// Answers `GetVerificationDocument`.
    func getVerificationDocument(
      _ request: GetVerificationDocumentRequest, context: ServerContext
    ) async throws -> VerificationDocument
    /// Answers `ReviewVerification`.
    func reviewVerification(_ request: ReviewVerificationRequest, context: ServerContext)
      async throws -> Verification
    /// Answers `SetVerifiedLevel`.
    func setVerifiedLevel(_ request: SetVerifiedLevelRequest, context: ServerContext)
      async throws -> Profile
  }

  /// The typed client of the players service.
  public struct Client: Sendable {
    private let client: RPCClient

    /// A stub that calls through `client`.
    public init(client: RPCClient) { self.client = client }

    /// Calls `GetProfile`.
    public func getProfile(_ request: GetProfileRequest, options: CallOptions = CallOptions())
      async throws -> Profile
    {
      try await client.unary(Players.getProfile, request, options: options)
    }

    /// Calls `GetMyProfile`.
    public func getMyProfile(
      _ request: GetMyProfileRequest = GetMyProfileRequest(), options: CallOptions = CallOptions()
    ) async throws -> Profile {
      try await client.unary(Players.getMyProfile, request, options: options)
    }

    /// Calls `UpdateProfile`.
    public func updateProfile(
      _ request: UpdateProfileRequest, options: CallOptions = CallOptions()
    ) async throws -> Profile {
      try await client.unary(Players.updateProfile, request, options: options)
    }

    /// Calls `UpdateLocation`.
    public func updateLocation(
      _ request: UpdateLocationRequest, options: CallOptions = CallOptions()
    ) async throws -> UpdateLocationResponse {
      try await client.unary(Players.updateLocation, request, options: options)
    }

    /// Calls `NearbyPlayers`.
    public func nearbyPlayers(
      _ request: NearbyPlayersRequest = NearbyPlayersRequest(),
      options: CallOptions = CallOptions()
    ) async throws -> NearbyPlayersResponse {
      try await client.unary(Players.nearbyPlayers, request, options: options)
    }

    /// Calls `UploadDocumentPiece`.
    public func uploadDocumentPiece(
      _ request: UploadDocumentPieceRequest, options: CallOptions = CallOptions()
    ) async throws -> DocumentUpload {
      try await client.unary(Players.uploadDocumentPiece, request, options: options)
    }

    /// Calls `SubmitVerification`.
    public func submitVerification(
      _ request: SubmitVerificationRequest, options: CallOptions = CallOptions()
    ) async throws -> Verification {
      try await client.unary(Players.submitVerification, request, options: options)
    }

    /// Submits `document` for review: whole when it fits in one request, else uploaded piece by
    /// piece (`UploadDocumentPiece`, resuming from what the server says it holds) and then
    /// submitted by its upload id.
    public func submitVerification(
      kind: VerificationKind, document: [UInt8], options: CallOptions = CallOptions()
    ) async throws -> Verification {
      let pieceBytes = Players.maximumDocumentPieceBytes
      guard document.count > pieceBytes else {
        return try await submitVerification(
          SubmitVerificationRequest(kind: kind, document: document), options: options)
      }
      var upload = try await uploadDocumentPiece(
        UploadDocumentPieceRequest(
          totalSize: Int64(document.count), offset: 0, data: Array(document[..<pieceBytes])),
        options: options)
      while upload.receivedBytes < upload.totalSize {
        let start = Int(upload.receivedBytes)
        let end = min(start + pieceBytes, document.count)
        upload = try await uploadDocumentPiece(
          UploadDocumentPieceRequest(
            uploadID: upload.uploadID, offset: upload.receivedBytes,
            data: Array(document[start..<end])),
          options: options)
      }
      return try await submitVerification(
        SubmitVerificationRequest(kind: kind, uploadID: upload.uploadID), options: options)
    }

    /// Calls `ListMyVerifications`.
    public func listMyVerifications(
      _ request: ListMyVerificationsRequest = ListMyVerificationsRequest(),
      options: CallOptions = CallOptions()
    ) async throws -> ListVerificationsResponse {
      try await client.unary(Players.listMyVerifications, request, options: options)
    }

    /// Calls `ListPendingVerifications`.
    public func listPendingVerifications(
      _ request: ListPendingVerificationsRequest = ListPendingVerificationsRequest(),
      options: CallOptions = CallOptions()
    ) async throws -> ListVerificationsResponse {
      try await client.unary(Players.listPendingVerifications, request, options: options)
    }

    /// Calls `GetVerificationDocument`: one part of the document.
    public func getVerificationDocument(
      _ request: GetVerificationDocumentRequest, options: CallOptions = CallOptions()
    ) async throws -> VerificationDocument {
      try await client.unary(Players.getVerificationDocument, request, options: options)
    }

    /// The whole document of verification request `verificationID`, read part by part with
    /// `GetVerificationDocument`; returns its content type and bytes.
    public func verificationDocument(
      verificationID: Int64, options: CallOptions = CallOptions()
    ) async throws -> (contentType: String, document: [UInt8]) {
      var document: [UInt8] = []
      var contentType = ""
      repeat {
        let part = try await getVerificationDocument(
          GetVerificationDocumentRequest(
            verificationID: verificationID, offset: Int64(document.count)),
          options: options)
        guard part.offset == Int64(document.count), !part.document.isEmpty else {
          throw RPCError(
            code: .dataLoss, reason: "DOCUMENT_PART_UNEXPECTED",
            message: LocalizedText(
              en: "The server answered with a part the client did not ask for.",
              zhCN: "服务器返回的文件片段与请求不符。"))
        }
        contentType = part.contentType
        document += part.document
        if Int64(document.count) >= part.totalSize { break }
      } while true
      return (contentType, document)
    }

    /// Calls `ReviewVerification`.
    public func reviewVerification(
      _ request: ReviewVerificationRequest, options: CallOptions = CallOptions()
    ) async throws -> Verification {
      try await client.unary(Players.reviewVerification, request, options: options)
    }

    /// Calls `SetVerifiedLevel`.
    public func setVerifiedLevel(
      _ request: SetVerifiedLevelRequest, options: CallOptions = CallOptions()
    ) async throws -> Profile {
      try await client.unary(Players.setVerifiedLevel, request, options: options)
    }
  }
}

extension Players.ServiceProtocol {
  /// Adds every method of the players service to `registry`.
  public func registerMethods(in registry: inout HandlerRegistry) {
    registry.register(Players.getProfile) { request, context in
      try await self.getProfile(request, context: context)
    }
    registry.register(
      Players.getMyProfile,
      inline: { request, context in
        try self.getMyProfile(request, context: context)
      })
    registry.register(Players.updateProfile) { request, context in
      try await self.updateProfile(request, context: context)
    }
    registry.register(Players.updateLocation) { request, context in
      try await self.updateLocation(request, context: context)
    }
    registry.register(Players.nearbyPlayers) { request, context in
      try await self.nearbyPlayers(request, context: context)
    }
    registry.register(Players.uploadDocumentPiece) { request, context in
      try await self.uploadDocumentPiece(request, context: context)
    }
    registry.register(Players.submitVerification) { request, context in
      try await self.submitVerification(request, context: context)
    }
    registry.register(Players.listMyVerifications) { request, context in
      try await self.listMyVerifications(request, context: context)
    }
    registry.register(Players.listPendingVerifications) { request, context in
      try await self.listPendingVerifications(request, context: context)
    }
    registry.register(Players.getVerificationDocument) { request, context in
      try await self.getVerificationDocument(request, context: context)
    }
    registry.register(Players.reviewVerification) { request, context in
      try await self.reviewVerification(request, context: context)
    }
    registry.register(Players.setVerifiedLevel) { request, context in
      try await self.setVerifiedLevel(request, context: context)
    }
  }
}

extension RPCClient {
  /// The typed client of the players service.
  public var players: Players.Client { Players.Client(client: self) }
}
