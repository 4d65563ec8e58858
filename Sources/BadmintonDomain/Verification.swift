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
    guard let type = ContentType.allCases.first(where: { document.starts(with: $0.signature) })
    else {
      throw .invalidField(
        "document", "DOCUMENT_TYPE_UNSUPPORTED",
        en: "The document must be a PNG, JPEG or PDF file.",
        zhCN: "文件须为 PNG、JPEG 或 PDF 格式。")
    }
    return type
  }
}
