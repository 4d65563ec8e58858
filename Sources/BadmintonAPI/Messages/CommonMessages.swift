public import BadmintonRPC
public import CBadmintonProto

/// How a player's peers rated them after matches (`badminton.v1.ReputationSummary`).
public struct ReputationSummary: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.ReputationSummary`.
  public typealias CMessage = Badminton__V1__ReputationSummary
  /// protoc-c's descriptor of `badminton.v1.ReputationSummary`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.ReputationSummary")

  /// The summary of a player with no evaluations yet: accuracy 0, punctuality 100, character 3.
  public static let empty = ReputationSummary(
    evaluationCount: 0, averageSkillAccuracy: 0, punctualityPercentage: 100,
    averageCharacterRating: 3)

  /// Number of peer evaluations received.
  public var evaluationCount: Int32
  /// Average distance between peers' skill ratings and the self-reported level; 0 = agreement.
  public var averageSkillAccuracy: Double
  /// Share of matches the player was on time for, 0-100.
  public var punctualityPercentage: Double
  /// Average character rating, 1-5.
  public var averageCharacterRating: Double

  /// The summary with every field at zero, as an absent summary decodes.
  public init() { self.init(evaluationCount: 0) }

  /// A summary with the given fields.
  public init(
    evaluationCount: Int32 = 0,
    averageSkillAccuracy: Double = 0,
    punctualityPercentage: Double = 0,
    averageCharacterRating: Double = 0
  ) {
    self.evaluationCount = evaluationCount
    self.averageSkillAccuracy = averageSkillAccuracy
    self.punctualityPercentage = punctualityPercentage
    self.averageCharacterRating = averageCharacterRating
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) {
    self.evaluationCount = c.evaluation_count
    self.averageSkillAccuracy = c.average_skill_accuracy
    self.punctualityPercentage = c.punctuality_percentage
    self.averageCharacterRating = c.average_character_rating
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__reputation_summary__init(&c)
    c.evaluation_count = evaluationCount
    c.average_skill_accuracy = averageSkillAccuracy
    c.punctuality_percentage = punctualityPercentage
    c.average_character_rating = averageCharacterRating
    return c
  }
}

/// A player as others see them in lists: friends, requests, rooms, threads. (`badminton.v1.PlayerCard`).
public struct PlayerCard: ProtobufMessage, Hashable {
  /// The protoc-c struct of `badminton.v1.PlayerCard`.
  public typealias CMessage = Badminton__V1__PlayerCard
  /// protoc-c's descriptor of `badminton.v1.PlayerCard`.
  public static let cDescriptor = CDescriptors.message("badminton.v1.PlayerCard")

  /// User id.
  public var userID: Int64
  /// Nickname.
  public var nickname: String
  /// Display level.
  public var displayLevel: Int32
  /// Fewer than 5 peer evaluations: the display level is the self-reported one.
  public var newPlayer: Bool
  /// Reputation. Always encoded; all defaults when absent on the wire.
  public var reputation: ReputationSummary

  /// The message with every field at its default.
  public init() { self.init(userID: 0) }

  /// A message with the given fields.
  public init(
    userID: Int64 = 0,
    nickname: String = "",
    displayLevel: Int32 = 0,
    newPlayer: Bool = false,
    reputation: ReputationSummary = ReputationSummary()
  ) {
    self.userID = userID
    self.nickname = nickname
    self.displayLevel = displayLevel
    self.newPlayer = newPlayer
    self.reputation = reputation
  }

  /// Copies a protoc-c struct.
  public init(cMessage c: borrowing CMessage) throws(MessageDecodingError) {
    self.userID = c.user_id
    self.nickname = CField.string(c.nickname)
    self.displayLevel = c.display_level
    self.newPlayer = c.new_player != 0
    self.reputation =
      try CField.message(c.reputation, as: ReputationSummary.self) ?? ReputationSummary()
  }

  /// A protoc-c struct for this message whose pointers live in `arena`.
  public func cMessage(in arena: CArena) -> CMessage {
    var c = CMessage()
    badminton__v1__player_card__init(&c)
    c.user_id = userID
    c.nickname = arena.string(nickname)
    c.display_level = displayLevel
    c.new_player = newPlayer ? 1 : 0
    c.reputation = arena.pointer(to: reputation.cMessage(in: arena))
    return c
  }
}
