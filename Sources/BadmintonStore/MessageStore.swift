/// Direct messages and their threads, behind an interface of our own. Every method that writes
/// returns only after the write is committed.
public protocol MessageStore: Sendable {
}
