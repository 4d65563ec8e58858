/// Game rooms and their participants, behind an interface of our own. Every method that writes
/// returns only after the write is committed.
public protocol RoomStore: Sendable {
}
