public import BadmintonAPI
public import BadmintonDomain
public import BadmintonProjections

/// A FindMatches call as the RPC and wire figures make it: a board of synthetic availability,
/// the caller's availability picked so that a page is full, and the public profiles of the
/// players the page names. Both servers of the RPC comparison run exactly this domain call and
/// differ only in how they carry it.
public final class FindMatchesFixture: Sendable {
  /// A player's public profile as a candidate shows it.
  public struct Profile: Sendable {
    public var nickname: String
    public var level: Int32
    public var reputation: (count: Int32, accuracy: Double, punctuality: Double, character: Double)
  }

  /// The board the searches run on.
  public let board: MatchBoard
  /// The caller's availability.
  public let query: MatchRequest
  /// Every synthetic player's profile, by id.
  public let profiles: [Int64: Profile]
  /// Candidates per page.
  public let pageSize: Int

  private static let nicknames = [
    "小林", "Wei Chen", "羽毛球爱好者", "Priya", "Ahmad", "Mei", "Kenji 健二", "Lucas", "张伟", "Siti",
    "Rahul", "Ji-woo", "Anna", "李娜", "Nguyen Van An", "Tom",
  ]

  /// A board of `requests` synthetic availability and the caller whose first page holds
  /// `pageSize` candidates (or as many as any caller of a sample gets).
  public init(requests: Int = 10_000, pageSize: Int = PageRules.defaultSize) {
    let world = SyntheticWorld.generate(
      requests: requests, startUnixMs: MatchingWorkloads.startUnixMs)
    board = MatchingWorkloads.board(for: world).board
    var best = world.requests[0]
    var bestCount = -1
    for n in 0..<min(2_000, world.requests.count) {
      let candidate = MatchingWorkloads.query(n, in: world)
      let found = board.search(for: candidate, excluding: [], limit: pageSize, after: nil)
        .candidates.count
      if found > bestCount {
        (best, bestCount) = (candidate, found)
        if found == pageSize { break }
      }
    }
    query = best
    self.pageSize = pageSize
    var random = SplitMix64(seed: 11)
    var profiles: [Int64: Profile] = [:]
    for player in world.players {
      let count = Int32.random(in: 0...40, using: &random)
      profiles[player.id] = Profile(
        nickname: Self.nicknames[Int(player.id) % Self.nicknames.count], level: Int32(player.level),
        reputation: (
          count, count == 0 ? 0 : Double.random(in: 0...3, using: &random),
          count == 0 ? 100 : Double(Int.random(in: 60...100, using: &random)),
          count == 0 ? 3 : Double.random(in: 2...5, using: &random)
        ))
    }
    self.profiles = profiles
  }

  /// The domain call both servers make: the first page for the caller's availability.
  public func page() -> MatchPage {
    board.search(for: query, excluding: [], limit: pageSize, after: nil)
  }

  /// The page as our API's response.
  public func response(_ page: MatchPage) -> FindMatchesResponse {
    FindMatchesResponse(
      candidates: page.candidates.map { candidate in
        let profile = profiles[candidate.playerID]!
        return APIMatchCandidate(
          availabilityID: candidate.requestID, userID: candidate.playerID,
          nickname: profile.nickname, displayLevel: profile.level,
          newPlayer: profile.reputation.count < 5,
          reputation: ReputationSummary(
            evaluationCount: profile.reputation.count,
            averageSkillAccuracy: profile.reputation.accuracy,
            punctualityPercentage: profile.reputation.punctuality,
            averageCharacterRating: profile.reputation.character),
          distanceMiles: candidate.distanceMiles,
          skillDifference: Int32(candidate.skillDifference),
          overlap: APITimeSlot(
            startUnixMs: candidate.overlap.startUnixMs, endUnixMs: candidate.overlap.endUnixMs))
      },
      nextPageToken: page.nextCursor?.token ?? "")
  }

  /// The request the client sends.
  public var request: FindMatchesRequest {
    FindMatchesRequest(availabilityID: query.id, pageSize: Int32(pageSize), pageToken: "")
  }
}
