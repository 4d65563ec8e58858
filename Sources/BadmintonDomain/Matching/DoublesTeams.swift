/// Four players split into two teams of two for a doubles game.
public struct DoublesTeams: Hashable, Sendable {
  /// The team with the lowest player id, ids ascending.
  public var first: [Int64]
  /// The other team, ids ascending.
  public var second: [Int64]
  /// The difference between the teams' level sums, never negative.
  public var levelGap: Int

  /// A split with the given fields.
  public init(first: [Int64], second: [Int64], levelGap: Int) {
    self.first = first
    self.second = second
    self.levelGap = levelGap
  }

  /// The split of four different players whose teams' level sums are closest; among equally
  /// close splits, the one that pairs the lowest id with the lowest partner id.
  public static func balanced(_ players: [(playerID: Int64, level: Int)]) -> DoublesTeams {
    precondition(
      players.count == 4 && Set(players.map(\.playerID)).count == 4, "four different players")
    let sorted = players.sorted { $0.playerID < $1.playerID }
    var best: DoublesTeams?
    for partner in 1...3 {
      let others = [1, 2, 3].filter { $0 != partner }
      let gap = abs(
        sorted[0].level + sorted[partner].level - sorted[others[0]].level
          - sorted[others[1]].level)
      if best == nil || gap < best!.levelGap {
        best = DoublesTeams(
          first: [sorted[0].playerID, sorted[partner].playerID],
          second: [sorted[others[0]].playerID, sorted[others[1]].playerID], levelGap: gap)
      }
    }
    return best!
  }
}

extension MatchRules {
  /// The teams of a match, by player, for its players in seat order (the proposer or the room's
  /// first player first): in singles each player is a team, 1 and 2 in that order; in doubles
  /// the most even split by level (`DoublesTeams.balanced`), the lowest id's team being 1.
  public static func teams(_ players: [(playerID: Int64, level: Int)]) -> [Int64: Int] {
    guard players.count == 4 else {
      return Dictionary(
        players.enumerated().map { ($1.playerID, $0 + 1) }, uniquingKeysWith: { first, _ in first })
    }
    let split = DoublesTeams.balanced(players)
    var teams: [Int64: Int] = [:]
    for id in split.first { teams[id] = 1 }
    for id in split.second { teams[id] = 2 }
    return teams
  }
}
