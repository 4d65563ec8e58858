/// Follows the frames of one direction of a connection (a 5-byte header: flags, then the body's
/// length as a big-endian 32-bit number; then the body) through the chunks they arrive in, so
/// that the proxy can place a fault inside a chosen frame.
struct FrameScanner {
  /// Frames whose first byte has been seen.
  private(set) var framesStarted = 0
  /// Frames seen whole.
  private(set) var framesCompleted = 0
  /// Bytes of the current frame seen so far (0 between frames).
  private(set) var offsetInFrame = 0
  /// The current frame's whole size, once its header is complete.
  private(set) var frameSize: Int?
  private var length: UInt32 = 0

  /// A place in a chunk where something happens to a frame.
  enum Event {
    /// Frame `frame` (from 1) starts at chunk index `at`; nothing of it has been scanned yet.
    case started(at: Int, frame: Int)
    /// Frame `frame`'s header completes in this chunk: the frame starts at chunk index `start`
    /// (negative when it started in an earlier chunk) and takes `size` bytes in all.
    case header(start: Int, size: Int, frame: Int)
  }

  /// Advances over `bytes`, telling `observe` of each frame's start and each completed header.
  /// When `observe` returns false the scan stops there: after a `started` event, before the
  /// frame's first byte (so scanning the rest again tells of that start again); after a `header`
  /// event, just past the header.
  mutating func scan(
    _ bytes: some RandomAccessCollection<UInt8>, observe: (Event) -> Bool = { _ in true }
  ) {
    var index = 0
    let count = bytes.count
    while index < count {
      guard let size = frameSize else {
        if offsetInFrame == 0 {
          if !observe(.started(at: index, frame: framesStarted + 1)) { return }
          framesStarted += 1
        }
        let byte = bytes[bytes.index(bytes.startIndex, offsetBy: index)]
        if offsetInFrame >= 1 { length = length << 8 | UInt32(byte) }
        offsetInFrame += 1
        index += 1
        if offsetInFrame == 5 {
          let size = 5 + Int(length)
          length = 0
          frameSize = size
          let event = Event.header(start: index - 5, size: size, frame: framesStarted)
          if size == 5 { finishFrame() }
          if !observe(event) { return }
        }
        continue
      }
      let take = min(size - offsetInFrame, count - index)
      offsetInFrame += take
      index += take
      if offsetInFrame == size { finishFrame() }
    }
  }

  private mutating func finishFrame() {
    framesCompleted += 1
    offsetInFrame = 0
    frameSize = nil
  }
}
