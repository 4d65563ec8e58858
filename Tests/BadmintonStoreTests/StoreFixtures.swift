import BadmintonDomain
import BadmintonStore
import Foundation

/// Shared inputs for the store tests.
enum StoreFixtures {
  /// A digest standing in for a real key derivation; the store keeps whatever bytes it is given.
  static let digest = PasswordDigest(
    hash: [1, 2, 3], salt: [4, 5, 6], parameters: "scrypt:16:1:1")

  /// A registration with the given phone and nickname.
  static func newPlayer(
    phone: String = "+8613800138000", nickname: String = "羽毛球小王", selfLevel: Int = 5,
    locale: String = "zh-CN", joinedAtUnixMs: Int64 = 1_700_000_000_000
  ) -> NewPlayer {
    NewPlayer(
      phone: phone, nickname: nickname, password: digest, selfLevel: selfLevel, locale: locale,
      joinedAtUnixMs: joinedAtUnixMs)
  }

  /// The leading bytes of a PNG followed by a little payload.
  static let pngDocument: [UInt8] =
    EvidenceDocument.ContentType.png.signature + [0x00, 0x01, 0xFE, 0xFF, 0x42]

  /// The leading bytes of a PDF followed by a little payload.
  static let pdfDocument: [UInt8] =
    EvidenceDocument.ContentType.pdf.signature + Array("1.7 national final".utf8) + [0]
}

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("badminton-store-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  var path: String { url.path }

  func fileExists(_ name: String) -> Bool {
    FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path)
  }

  func remove() {
    try? FileManager.default.removeItem(at: url)
  }
}

extension PlayerStore {
  /// A review whose event for the owner is the reviewed state's name, for tests that look only
  /// at the review itself.
  func reviewVerification(
    id: Int64, approve: Bool, note: String, reviewerID: Int64, atUnixMs: Int64
  ) async throws -> VerificationRecord {
    try await reviewVerification(
      id: id, approve: approve, note: note, reviewerID: reviewerID, atUnixMs: atUnixMs
    ) { Array("\($0.state)".utf8) }.verification
  }
}
