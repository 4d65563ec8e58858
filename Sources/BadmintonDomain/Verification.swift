/// The championship a verification request proves.
public enum ChampionshipKind: Int, Hashable, Sendable, CaseIterable {
  /// Allows level 8.
  case regional = 1
  /// Allows level 9.
  case national = 2

  /// The highest level an approved verification of this kind allows.
  public var allowedLevel: Int {
    switch self {
    case .regional: 8
    case .national: 9
    }
  }
}

/// Where a verification request stands.
public enum ReviewState: Int, Hashable, Sendable {
  case pending = 1
  case approved = 2
  case rejected = 3
}

/// Limits on verification requests.
public enum VerificationRules {
  /// Pending requests a player may have at once.
  public static let maximumPending = 3

  /// The error for a player who already has `maximumPending` requests waiting.
  public static let pendingLimitReached = DomainError(
    .failedPrecondition, "VERIFICATION_PENDING_LIMIT",
    en: "You already have 3 verification requests waiting for review.",
    zhCN: "您已有 3 个认证申请在等待审核。")

  /// Checks a new request of a player who has `pending` requests waiting.
  public static func checkPendingLimit(pending: Int) throws(DomainError) {
    guard pending < maximumPending else { throw pendingLimitReached }
  }

  /// Checks a review of a request in `state` (nil: there is no such request): only a pending
  /// request is reviewed.
  public static func checkReview(of state: ReviewState?) throws(DomainError) {
    guard let state else { throw notFound }
    guard state == .pending else { throw alreadyReviewed }
  }

  /// The error for a request that does not exist (or may not be shown to the caller).
  public static let notFound = DomainError(
    .notFound, "VERIFICATION_NOT_FOUND", en: "There is no such verification request.",
    zhCN: "没有该认证申请。")

  /// The error for a review of a request already approved or rejected.
  public static let alreadyReviewed = DomainError(
    .failedPrecondition, "VERIFICATION_ALREADY_REVIEWED",
    en: "This verification request was already reviewed.", zhCN: "该认证申请已审核。")

  /// Longest review note, in characters.
  public static let maximumNoteLength = 500
  /// Longest review note, in UTF-8 bytes.
  public static let maximumNoteBytes = 2000

  /// Checks a reviewer's note: at most 500 characters and 2000 UTF-8 bytes.
  public static func validateNote(_ note: String) throws(DomainError) {
    guard note.utf8.count <= maximumNoteBytes, note.count <= maximumNoteLength else {
      throw .invalidField(
        "note", "REVIEW_NOTE_TOO_LONG",
        en: "The review note must have at most 500 characters (2000 bytes in UTF-8).",
        zhCN: "审核备注最多 500 个字符（UTF-8 编码不超过 2000 字节）。")
    }
  }

  /// The error for an administrator reviewing their own request.
  public static let ownRequest = DomainError(
    .permissionDenied, "VERIFICATION_OWN_REQUEST",
    en: "Administrators cannot review their own verification requests.",
    zhCN: "管理员不能审核自己的认证申请。")
}

/// The evidence document of a verification request: its type is recognised by its leading
/// bytes, never by what the client claims.
public enum EvidenceDocument {
  /// The largest document accepted: 5 MiB.
  public static let maximumSize = 5 * 1024 * 1024

  /// The document types accepted.
  public enum ContentType: String, Hashable, Sendable, CaseIterable {
    case png = "image/png"
    case jpeg = "image/jpeg"
    case pdf = "application/pdf"

    /// The leading bytes that mark this type.
    public var signature: [UInt8] {
      switch self {
      case .png: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
      case .jpeg: [0xFF, 0xD8, 0xFF]
      case .pdf: Array("%PDF-".utf8)
      }
    }
  }

  /// The document's type, if it is a PNG, JPEG or PDF of at most 5 MiB.
  public static func validate(_ document: [UInt8]) throws(DomainError) -> ContentType {
    guard !document.isEmpty else {
      throw .invalidField(
        "document", "DOCUMENT_MISSING",
        en: "Attach the championship certificate as a PNG, JPEG or PDF file.",
        zhCN: "请附上 PNG、JPEG 或 PDF 格式的赛事证书。")
    }
    guard document.count <= maximumSize else {
      throw .invalidField(
        "document", "DOCUMENT_TOO_LARGE",
        en: "The document must be at most 5 MiB.",
        zhCN: "文件不能超过 5 MiB。")
    }
    return try contentType(of: document)
  }

  /// The type that `leading`, the document's first bytes, say; a refusal names `field`.
  public static func contentType(of leading: [UInt8], field: String = "document")
    throws(DomainError) -> ContentType
  {
    guard let type = ContentType.allCases.first(where: { leading.starts(with: $0.signature) })
    else {
      throw .invalidField(
        field, "DOCUMENT_TYPE_UNSUPPORTED",
        en: "The document must be a PNG, JPEG or PDF file.",
        zhCN: "文件须为 PNG、JPEG 或 PDF 格式。")
    }
    return type
  }
}

/// A verification document larger than one request may carry arrives in pieces: the first
/// piece states the whole size and, by its leading bytes, the type; each next piece starts where
/// the bytes received so far end; a piece sent again after a lost answer is acknowledged, not
/// stored twice. A finished upload is taken over by one verification request.
public enum DocumentUploadRules {
  /// The most bytes one piece (and a document sent whole in one request) may have.
  public static let maximumPieceBytes = 60_000

  /// Unfinished uploads a player may have at once.
  public static let maximumOpenUploads = 3

  /// An unfinished upload is removed this long after its last piece: one hour.
  public static let lifetimeMs: Int64 = 3_600_000

  /// The leading bytes the first piece must hold (or the whole document, if shorter): enough
  /// for every type's signature.
  public static var leadingBytes: Int {
    EvidenceDocument.ContentType.allCases.map(\.signature.count).max()!
  }

  /// What a piece does to an upload.
  public enum Placement: Hashable, Sendable {
    /// The piece continues the document: store it.
    case append
    /// The piece is already stored (sent again after a lost answer): acknowledge it only.
    case alreadyStored
  }

  /// Checks a piece's size: 1 to `maximumPieceBytes` bytes.
  public static func validatePiece(_ data: [UInt8]) throws(DomainError) {
    guard !data.isEmpty else {
      throw .invalidField(
        "data", "UPLOAD_PIECE_EMPTY", en: "A piece of a document must have at least one byte.",
        zhCN: "文件片段至少需要 1 个字节。")
    }
    guard data.count <= maximumPieceBytes else {
      throw .invalidField(
        "data", "UPLOAD_PIECE_TOO_LARGE",
        en: "A piece of a document may have at most 60,000 bytes.",
        zhCN: "每个文件片段最多 60,000 字节。")
    }
  }

  /// Checks the first piece of a new upload of a document of `totalSize` bytes: the piece
  /// starts at 0, the size is 1 byte to 5 MiB, the piece is no larger than the document and holds
  /// its leading bytes, and those say a PNG, JPEG or PDF. Returns that type.
  public static func validateStart(totalSize: Int64, offset: Int64, firstPiece: [UInt8])
    throws(DomainError) -> EvidenceDocument.ContentType
  {
    try validatePiece(firstPiece)
    guard offset == 0 else { throw offsetMismatch(expected: 0) }
    guard totalSize > 0 else {
      throw .invalidField(
        "total_size", "DOCUMENT_SIZE_MISSING",
        en: "State the whole document's size with its first piece.",
        zhCN: "请在第一个片段中注明整个文件的大小。")
    }
    guard totalSize <= Int64(EvidenceDocument.maximumSize) else {
      throw .invalidField(
        "total_size", "DOCUMENT_TOO_LARGE", en: "The document must be at most 5 MiB.",
        zhCN: "文件不能超过 5 MiB。")
    }
    guard Int64(firstPiece.count) <= totalSize else { throw sizeMismatch }
    guard firstPiece.count >= min(Int64(leadingBytes), totalSize) else {
      throw .invalidField(
        "data", "UPLOAD_FIRST_PIECE_TOO_SMALL",
        en: "The first piece must hold at least the document's first 8 bytes.",
        zhCN: "第一个片段至少需要包含文件的前 8 个字节。")
    }
    return try EvidenceDocument.contentType(of: firstPiece, field: "data")
  }

  /// Where a piece of `length` bytes starting at `offset` goes in an upload of `totalSize`
  /// bytes of which `received` are stored; `statedTotal` is the size the request states (0 for
  /// none).
  public static func place(
    offset: Int64, length: Int, statedTotal: Int64, received: Int64, totalSize: Int64
  ) throws(DomainError) -> Placement {
    guard statedTotal == 0 || statedTotal == totalSize else { throw sizeMismatch }
    guard offset >= 0, offset <= received else { throw offsetMismatch(expected: received) }
    let end = offset + Int64(length)
    if end <= received { return .alreadyStored }
    guard offset == received else { throw offsetMismatch(expected: received) }
    guard end <= totalSize else { throw sizeMismatch }
    return .append
  }

  /// Checks where a reader of a stored document of `totalSize` bytes starts: 0 to the last byte.
  public static func checkReadOffset(_ offset: Int64, totalSize: Int64) throws(DomainError) {
    guard offset >= 0, offset < totalSize else {
      throw .invalidField(
        "offset", "DOCUMENT_OFFSET_INVALID",
        en: "The offset must be from 0 to the document's last byte (\(totalSize - 1)).",
        zhCN: "偏移量须在 0 到文件最后一个字节（\(totalSize - 1)）之间。")
    }
  }

  /// Whether an upload of `totalSize` bytes with `received` stored may be submitted.
  public static func checkFinished(received: Int64, totalSize: Int64) throws(DomainError) {
    guard received == totalSize else {
      throw DomainError(
        .failedPrecondition, "UPLOAD_INCOMPLETE",
        en: "The upload has \(received) of its \(totalSize) bytes; send the rest first.",
        zhCN: "该上传已收到 \(totalSize) 字节中的 \(received) 字节，请先发送其余部分。")
    }
  }

  /// The error for a piece that does not start where the stored bytes end.
  public static func offsetMismatch(expected: Int64) -> DomainError {
    .invalidField(
      "offset", "UPLOAD_OFFSET_MISMATCH",
      en: "The next piece must start at byte \(expected).",
      zhCN: "下一个片段应从第 \(expected) 字节开始。")
  }

  /// The error for pieces that do not add up to the stated size.
  public static let sizeMismatch = DomainError.invalidField(
    "total_size", "DOCUMENT_SIZE_MISMATCH",
    en: "The pieces must add up to exactly the document size stated with the first piece.",
    zhCN: "各片段的总大小必须与第一个片段中注明的文件大小完全一致。")

  /// The error for an upload that does not exist, has expired, was submitted already or is
  /// someone else's.
  public static let notFound = DomainError(
    .notFound, "UPLOAD_NOT_FOUND",
    en: "There is no such upload in progress; it may have expired. Start again.",
    zhCN: "没有该上传，可能已过期，请重新开始。")

  /// Checks a new upload of a player who has `open` unfinished uploads.
  public static func checkOpenUploads(_ open: Int) throws(DomainError) {
    guard open < maximumOpenUploads else { throw openLimitReached }
  }

  /// The error for a player who already has `maximumOpenUploads` unfinished uploads.
  public static let openLimitReached = DomainError(
    .failedPrecondition, "UPLOAD_LIMIT",
    en: "You already have 3 uploads in progress; finish one or wait an hour for it to expire.",
    zhCN: "您已有 3 个上传正在进行，请先完成其中一个，或等待一小时后它过期。")

  /// The error for a request that gives both a document and an upload.
  public static let documentTwice = DomainError.invalidField(
    "upload_id", "DOCUMENT_GIVEN_TWICE",
    en: "Send either the document or an upload id, not both.",
    zhCN: "请只提供文件或上传编号之一，不要同时提供。")

  /// The error for a document sent whole that is larger than one piece.
  public static let documentNeedsUpload = DomainError.invalidField(
    "document", "DOCUMENT_NEEDS_UPLOAD",
    en: "A document over 60,000 bytes must be sent in pieces with UploadDocumentPiece.",
    zhCN: "超过 60,000 字节的文件须通过 UploadDocumentPiece 分片上传。")
}
