import BadmintonDomain
import PropertyBased
import Testing

/// The decisions the store asks of the domain inside its transactions, each checked over many
/// random cases against a simple oracle.
@Suite("Rule decisions")
struct RuleDecisionTests {
  /// The reason of the `DomainError` that `body` threw, or nil.
  private func reason(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch let error as DomainError {
      return error.reason
    } catch {
      return "NOT_A_DOMAIN_ERROR"
    }
  }

  private static let statuses: [MatchStatus] = [.confirmed, .cancelled, .completed]

  /// A slot on a small grid of whole milliseconds, 1 to 6 long.
  private static func slot(_ rng: inout some RandomNumberGenerator) -> TimeSlot {
    let start = Int64.random(in: 0...20, using: &rng)
    return TimeSlot(startUnixMs: start, endUnixMs: start + Int64.random(in: 1...6, using: &rng))
  }

  private static let matches = Generator { rng in
    (0..<Int.random(in: 0...4, using: &rng)).map { _ in
      BookedMatch(slot: slot(&rng), status: statuses.randomElement(using: &rng)!)
    }
  }

  private static let slots = Generator { rng in slot(&rng) }

  /// Oracle: some whole millisecond lies in both slots (they start and end on whole ones).
  private static func shareAnInstant(_ a: TimeSlot, _ b: TimeSlot) -> Bool {
    (a.startUnixMs..<a.endUnixMs).contains { b.startUnixMs <= $0 && $0 < b.endUnixMs }
  }

  @Test(
    "a player is booked exactly when a match of theirs not cancelled shares an instant with the slot"
  )
  func booked_matchesOracle() async {
    await propertyCheck(count: 3000, input: Self.matches, Self.slots) { matches, slot in
      let oracle = matches.contains {
        $0.status != .cancelled && Self.shareAnInstant($0.slot, slot)
      }
      #expect(BookingRules.isBooked(matches, during: slot) == oracle)
      for match in matches {
        #expect(BookingRules.overlaps(match.slot, slot) == Self.shareAnInstant(match.slot, slot))
        #expect(BookingRules.overlaps(match.slot, slot) == BookingRules.overlaps(slot, match.slot))
      }
    }
    // Back to back is not booked; a completed match still holds its whole slot.
    let hour = TimeSlot(startUnixMs: 0, endUnixMs: 3_600_000)
    let next = TimeSlot(startUnixMs: 3_600_000, endUnixMs: 7_200_000)
    #expect(!BookingRules.isBooked([BookedMatch(slot: hour)], during: next))
    #expect(BookingRules.isBooked([BookedMatch(slot: next, status: .completed)], during: next))
    #expect(!BookingRules.isBooked([BookedMatch(slot: next, status: .cancelled)], during: next))
  }

  @Test(
    "a proposal's last acceptance confirms exactly when every availability is active and nobody is booked"
  )
  func proposalConfirms_matchesOracle() async {
    let seats = Generator { rng in
      (0..<(Bool.random(using: &rng) ? 2 : 4)).map { _ in
        ProposalSeat(
          availabilityActive: Int.random(in: 0..<6, using: &rng) > 0,
          matches: (0..<Int.random(in: 0...2, using: &rng)).map { _ in
            BookedMatch(slot: Self.slot(&rng), status: Self.statuses.randomElement(using: &rng)!)
          })
      }
    }
    await propertyCheck(count: 3000, input: seats, Self.slots) { seats, slot in
      let oracle = seats.allSatisfy { seat in
        seat.availabilityActive
          && !seat.matches.contains {
            $0.status != .cancelled && Self.shareAnInstant($0.slot, slot)
          }
      }
      #expect(ProposalRules.confirms(slot: slot, seats: seats) == oracle)
    }
  }

  @Test(
    "a proposal expires when its time starts or 24 hours on; answers need it pending and unanswered"
  )
  func proposalExpiryAndAnswers_matchOracle() async {
    let day: Int64 = 86_400_000
    await propertyCheck(
      count: 3000, input: Gen.int(in: 0...(3 * 86_400_000)), Gen.int(in: 0...(2 * 86_400_000)),
      Gen.int(in: 0...3)
    ) { lead, elapsed, flags in
      let now: Int64 = 1_800_000_000_000
      let expiry = ProposalRules.expiresAt(slotStartUnixMs: now + Int64(lead), nowUnixMs: now)
      #expect(expiry == (Int64(lead) < day ? now + Int64(lead) : now + day))
      let later = now + Int64(elapsed)
      let expired = later >= expiry
      #expect(ProposalRules.isExpired(expiresAtUnixMs: expiry, nowUnixMs: later) == expired)
      let pending = flags & 1 == 0
      let answered = flags & 2 != 0
      let oracle: String? =
        !pending || expired
        ? "PROPOSAL_NOT_PENDING" : answered ? "PROPOSAL_ALREADY_ANSWERED" : nil
      #expect(
        reason {
          try ProposalRules.checkAnswer(
            isPending: pending, expiresAtUnixMs: expiry, alreadyAnswered: answered,
            nowUnixMs: later)
        } == oracle)
    }
  }

  @Test(
    "a match is cancelled only confirmed and before its start; its result is recorded only confirmed and from its start"
  )
  func matchLifecycle_matchesOracle() async {
    await propertyCheck(count: 2000, input: Gen.int(in: 0...2), Gen.int(in: -5...5)) {
      index, offset in
      let status = Self.statuses[index]
      let start: Int64 = 1_000
      let now = start + Int64(offset)
      let cancel: String? =
        status != .confirmed ? "MATCH_NOT_CONFIRMED" : now >= start ? "MATCH_ALREADY_STARTED" : nil
      #expect(
        reason {
          try MatchLifecycle.checkCancel(status: status, slotStartUnixMs: start, nowUnixMs: now)
        } == cancel)
      let complete: String? =
        status == .cancelled
        ? "MATCH_NOT_CONFIRMED"
        : status == .confirmed && now < start
          ? "MATCH_NOT_STARTED" : nil
      #expect(
        reason {
          _ = try MatchLifecycle.completion(status: status, slotStartUnixMs: start, nowUnixMs: now)
        } == complete)
      if complete == nil {
        #expect(
          try! MatchLifecycle.completion(status: status, slotStartUnixMs: start, nowUnixMs: now)
            == (status == .completed ? .alreadyCompleted : .record))
      }
    }
  }

  @Test("a survey is submitted once, while pending and before its due instant")
  func surveySubmission_matchesOracle() async {
    let statuses: [SurveyStatus] = [.pending, .submitted, .expired]
    await propertyCheck(count: 2000, input: Gen.int(in: 0...2), Gen.int(in: -5...5)) {
      index, offset in
      let status = statuses[index]
      let due: Int64 = 1_000
      let now = due + Int64(offset)
      let oracle: String? =
        status == .submitted
        ? "SURVEY_ALREADY_SUBMITTED" : status == .expired || now >= due ? "SURVEY_EXPIRED" : nil
      #expect(
        reason {
          try SurveyRules.checkSubmission(status: status, dueAtUnixMs: due, nowUnixMs: now)
        } == oracle)
    }
  }

  @Test(
    "a contact is refused when the sender blocked the recipient, hidden when the recipient blocked the sender"
  )
  func contact_matchesOracle() {
    for senderBlocked in [false, true] {
      for recipientBlocked in [false, true] {
        var delivery: Delivery?
        let refused = reason {
          delivery = try BlockRules.contact(
            senderBlockedRecipient: senderBlocked, recipientBlockedSender: recipientBlocked)
        }
        #expect(refused == (senderBlocked ? "PLAYER_BLOCKED" : nil))
        if !senderBlocked { #expect(delivery == (recipientBlocked ? .hidden : .delivered)) }
      }
    }
  }

  private static let joins = Generator { rng in
    RoomJoin(
      status: [RoomStatus.open, .open, .open, .started, .closed, .expired].randomElement(
        using: &rng)!,
      mode: Bool.random(using: &rng) ? .singles : .doubles,
      lastActivityAtUnixMs: Int64.random(in: 0...3_600_000, using: &rng),
      participantCount: Int.random(in: 1...4, using: &rng),
      joinerInOpenRoom: Int.random(in: 0..<4, using: &rng) == 0,
      blockedByParticipant: Int.random(in: 0..<4, using: &rng) == 0,
      blockedParticipant: Int.random(in: 0..<4, using: &rng) == 0)
  }

  @Test(
    "a join is let in or refused as the oracle says, and whoever blocked the joiner hides the room")
  func join_matchesOracle() async {
    await propertyCheck(count: 5000, input: Self.joins, Gen.int(in: 0...3_600_000)) { join, now in
      let now = Int64(now)
      let expired =
        join.status == .expired
        || (join.status == .open && now - join.lastActivityAtUnixMs >= 30 * 60_000)
      let capacity = join.mode == .singles ? 2 : 4
      // Oracle: the first reason that holds, in the documented order.
      let reasons: [(Bool, String)] = [
        (join.status == .started || join.status == .closed, "ROOM_CODE_INVALID"),
        (expired, "ROOM_EXPIRED"),
        (join.joinerInOpenRoom, "ALREADY_IN_ROOM"),
        (join.blockedByParticipant, "ROOM_CODE_INVALID"),
        (join.blockedParticipant, "PLAYER_BLOCKED"),
        (join.participantCount >= capacity, "ROOM_FULL"),
      ]
      let oracle = reasons.first { $0.0 }?.1
      let decided = reason { try RoomRules.checkJoin(join, nowUnixMs: now) }
      #expect(decided == oracle)
      // Whatever else holds of an open room, a blocked joiner is never told anything but an
      // unknown code once they are free to join.
      if join.blockedByParticipant && !expired && join.status == .open && !join.joinerInOpenRoom {
        #expect(decided == "ROOM_CODE_INVALID")
      }
    }
  }

  @Test("an invitation goes to another player who is a friend and not in the room, unless blocked")
  func invite_matchesOracle() async {
    await propertyCheck(count: 3000, input: Gen.int(in: 1...4), Gen.int(in: 0...15)) {
      invitee, flags in
      let owner: Int64 = 1
      let participants: [Int64] = flags & 1 == 0 ? [1, 2] : [1, 2, 3]
      let friends = flags & 2 != 0
      let ownerBlocked = flags & 4 != 0
      let inviteeBlocked = flags & 8 != 0
      var delivery: Delivery?
      let decided = reason {
        delivery = try RoomRules.invite(
          ownerID: owner, inviteeID: Int64(invitee), participantIDs: participants,
          areFriends: friends, ownerBlockedInvitee: ownerBlocked,
          inviteeBlockedOwner: inviteeBlocked)
      }
      let oracle: String? =
        invitee == 1
        ? "NOT_YOURSELF"
        : !friends
          ? "NOT_FRIENDS"
          : participants.contains(Int64(invitee))
            ? "ALREADY_ROOM_PARTICIPANT" : ownerBlocked ? "PLAYER_BLOCKED" : nil
      #expect(decided == oracle)
      if oracle == nil { #expect(delivery == (inviteeBlocked ? .hidden : .delivered)) }
    }
  }

  @Test("a room starts when it holds the players its mode needs and none of them is booked")
  func start_matchesOracle() async {
    let players = Generator { rng in
      (0..<Int.random(in: 1...5, using: &rng)).map { _ in
        (0..<Int.random(in: 0...2, using: &rng)).map { _ in
          BookedMatch(slot: Self.slot(&rng), status: Self.statuses.randomElement(using: &rng)!)
        }
      }
    }
    await propertyCheck(count: 3000, input: players, Self.slots, Gen.bool()) {
      players, slot, singles in
      let mode: MatchMode = singles ? .singles : .doubles
      let oracle: String? =
        players.count != (singles ? 2 : 4)
        ? "ROOM_NOT_READY"
        : players.contains { matches in
          matches.contains { $0.status != .cancelled && Self.shareAnInstant($0.slot, slot) }
        } ? "ROOM_PLAYER_BUSY" : nil
      #expect(
        reason { try RoomRules.checkStart(mode: mode, slot: slot, matches: players) } == oracle)
    }
  }

  @Test("teams: singles in seat order; doubles the most even 2 and 2, the lowest id's team first")
  func teams_matchOracle() async {
    await propertyCheck(count: 2000, input: Gen.int(in: 1...9).array(of: 4...4), Gen.bool()) {
      levels, singles in
      let ids: [Int64] = [40, 10, 30, 20]
      if singles {
        let teams = MatchRules.teams([(ids[0], levels[0]), (ids[1], levels[1])])
        #expect(teams == [ids[0]: 1, ids[1]: 2])
        return
      }
      let players = zip(ids, levels).map { (playerID: $0, level: $1) }
      let teams = MatchRules.teams(players)
      let level = Dictionary(uniqueKeysWithValues: players.map { ($0.playerID, $0.level) })
      let first = ids.filter { teams[$0] == 1 }
      let second = ids.filter { teams[$0] == 2 }
      #expect(first.count == 2 && second.count == 2)
      #expect(first.contains(10))
      // Oracle: the smallest gap over the three ways to pair player 10.
      let best = [20, 30, 40].map { partner -> Int in
        let team = [Int64(10), Int64(partner)]
        let sum = team.map { level[$0]! }.reduce(0, +)
        return abs(2 * sum - levels.reduce(0, +))
      }.min()!
      let gap = abs(first.map { level[$0]! }.reduce(0, +) - second.map { level[$0]! }.reduce(0, +))
      #expect(gap == best)
    }
  }
}
