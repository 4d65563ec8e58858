import BadmintonDomain
import BenchmarkWorkloads
import GRPCPeer

extension FindMatchesFixture {
  /// The page as swift-protobuf's message, field for field as `response(_:)` builds ours.
  func peerResponse(_ page: MatchPage) -> Badminton_V1_FindMatchesResponse {
    var response = Badminton_V1_FindMatchesResponse()
    response.candidates = page.candidates.map { candidate in
      let profile = profiles[candidate.playerID]!
      var message = Badminton_V1_MatchCandidate()
      message.availabilityID = candidate.requestID
      message.userID = candidate.playerID
      message.nickname = profile.nickname
      message.displayLevel = profile.level
      message.newPlayer = profile.reputation.count < 5
      message.reputation.evaluationCount = profile.reputation.count
      message.reputation.averageSkillAccuracy = profile.reputation.accuracy
      message.reputation.punctualityPercentage = profile.reputation.punctuality
      message.reputation.averageCharacterRating = profile.reputation.character
      message.distanceMiles = candidate.distanceMiles
      message.skillDifference = Int32(candidate.skillDifference)
      message.overlap.startUnixMs = candidate.overlap.startUnixMs
      message.overlap.endUnixMs = candidate.overlap.endUnixMs
      return message
    }
    response.nextPageToken = page.nextCursor?.token ?? ""
    return response
  }

  /// The request as swift-protobuf's message.
  var peerRequest: Badminton_V1_FindMatchesRequest {
    var request = Badminton_V1_FindMatchesRequest()
    request.availabilityID = query.id
    request.pageSize = Int32(pageSize)
    return request
  }
}
