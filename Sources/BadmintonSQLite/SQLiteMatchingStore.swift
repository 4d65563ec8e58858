public import BadmintonStore
public import BadmintonStoreSQL

/// Availability and recurring availability run the operations written once in
/// `BadmintonStoreSQL` (Matching.swift), proposals and matches those in Proposals.swift.
extension SQLitePlayerStore: MatchingStore, ProposalStore {}
