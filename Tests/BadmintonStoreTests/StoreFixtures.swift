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

/// The matching writes without events, for tests that look only at the writes themselves.
extension MatchingStore {
  func createAvailability(_ new: NewAvailability, activeLimit: Int, now: Int64) async throws
    -> AvailabilityRecord
  {
    try await createAvailability(new, activeLimit: activeLimit, now: now) { _ in [] }
  }

  func saveRecurring(_ settings: RecurringSettings, occurrences: [NewAvailability]) async throws
    -> RecurringChange
  {
    try await saveRecurring(settings, occurrences: occurrences) { _ in [] }
  }

  func addRecurringOccurrences(_ occurrences: [NewAvailability]) async throws
    -> [AvailabilityRecord]
  {
    try await addRecurringOccurrences(occurrences) { _ in [] }
  }
}

extension ProposalStore {
  func createProposal(_ new: NewProposal, now: Int64) async throws -> ProposalRecord {
    try await createProposal(new, now: now) { _ in [] }
  }

  func answerProposal(
    id: Int64, playerID: Int64, accept: Bool, teams: [Int64: Int], now: Int64
  ) async throws -> ProposalAnswerOutcome {
    try await answerProposal(id: id, playerID: playerID, accept: accept, teams: teams, now: now) {
      _ in []
    }
  }

  func lapseProposals(now: Int64) async throws -> [ProposalRecord] {
    try await lapseProposals(now: now) { _ in [] }
  }

  func cancelMatch(id: Int64, playerID: Int64, now: Int64) async throws -> MatchCancellation {
    try await cancelMatch(id: id, playerID: playerID, now: now) { _ in [] }
  }
}
