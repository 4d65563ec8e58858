public import BadmintonRPC

/// The BadmintonBuddy API as a whole.
public enum BadmintonAPI {
  /// Every service of the API, in the order of their `.proto` files.
  public static let services: [ServiceDescriptor] = [
    Accounts.descriptor, Players.descriptor, Events.descriptor, Matching.descriptor,
    Friends.descriptor, Rooms.descriptor, Messages.descriptor, Schedule.descriptor,
    Surveys.descriptor,
  ]
}
