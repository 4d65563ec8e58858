/// A seeded random number generator (SplitMix64): the same seed gives the same numbers on every
/// machine, so a chaos run can be repeated from its seed.
public struct ChaosRandom: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator that starts from `seed`.
  public init(seed: UInt64) { state = seed }

  /// A generator for the `index`th member of a family derived from `seed` (a connection, a
  /// session), independent of how many numbers the others drew.
  public init(seed: UInt64, stream index: UInt64) {
    var mixer = ChaosRandom(seed: seed ^ (index &* 0x9E37_79B9_7F4A_7C15))
    state = mixer.next()
  }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
