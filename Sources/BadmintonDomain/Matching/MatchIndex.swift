internal import HeapModule
import Synchronization

/// The standing match requests in memory, arranged so that a search looks only at requests of
/// the same mode, on the UTC days the search's slot touches, in the grid cells its radius can
/// reach, instead of at every request.
///
/// What searches read is a `Snapshot`: a value whose parts are shared between versions and
/// copied only where a change reaches them (copy on write), so that a version handed to a
/// search stays as it was however the index changes afterwards, and a change copies a few small
/// pieces whatever the index's size. A snapshot keeps its requests in lists, one per bucket (a
/// mode, the UTC day a slot starts on, and whether it runs into the next day), grid cell and
/// level; each list is a run of chunks of at most 128 requests, in segments of 32 chunks, and
/// each chunk keeps a small filing per request (its slot to the minute, latitude, level and
/// tolerance) apart from the rest of it, so that a search rules most requests out from the
/// filings alone, and a stamp per request that says which versions show it (`Stamp`).
///
/// An index over shared places (a board's part, whose writer publishes a version after each
/// transaction) changes the chunks its snapshots share in place wherever the stamps let every
/// snapshot go on showing its own moment: a post writes past the last chunk's used slots, a
/// cancel stamps its request's slot as a hole, and neither copies anything. Only what the
/// stamps cannot say copies: a chunk that must grow, a level changed, a list packed once holes
/// crowd it, a request taken off that a snapshot still being read never showed. Such a change
/// copies the chunks it touches, their segments, the list's run of segments, the cell's lists,
/// the one of the bucket's 64 tables of cells that holds the cell, the list of those tables and
/// the table of buckets, and nothing else, and reshapes the index (`isReshaped`). The indexes
/// over the same places count their versions together, so a board publishes one moment of them
/// (`Places.pin()`) and reads at it the shape each index had when it was last reshaped
/// (`takeShape()`): a transaction that changed chunks in place publishes no index's snapshot.
/// A plain index changes by copying alone.
///
/// A cell of a bucket keeps one list until it is crowded, then a list per level. Results go by
/// skill difference, then shown distance, so a search reads a crowded cell's levels nearest its
/// own first and, within a level, the cells nearest its location first; once it holds a page
/// and one more, it passes over the lists, and the requests, that cannot come before the last
/// of them.
///
/// What only changes need, where each request stands and each player's requests, is kept by the
/// index beside its snapshot and never shared with a search: a player's requests are chained
/// through their places, so a level change moves all of them at once. Where requests stand is
/// kept in a table by request id (`Places`) that several indexes may share, as the parts of a
/// board do: one table over all the store's ids takes a few bytes per request where each part's
/// own would be mostly empty.
public struct MatchIndex: Sendable {
  /// The writer's version of what searches read: every request, as the index holds it now.
  private var current: Snapshot
  /// The versions of the snapshots taken, for an index over shared places (one count for all
  /// the indexes over them): nil for a plain index, whose chunks are never changed in place.
  private var versions: Versions? { places.versions }
  /// Where each request stands: its list's number and its position in the list. Shared with
  /// the other indexes made over the same `Places`; each reads and changes only its own
  /// requests' places, which it tells apart by what stands there (`place(of:)`).
  private var places: Places
  /// Requests in the index.
  public private(set) var count = 0
  /// The lists requests stand in, by number (a number whose list emptied is reused).
  private var lists: [ListKey] = []
  /// By list number: the requests each list holds, and the holes it has.
  private var onCounts: [Int32] = []
  private var holeCounts: [Int32] = []
  private var listNumbers: [ListKey: Int32] = [:]
  private var freeListNumbers: [Int32] = []
  /// A cell is split into a list per level once it holds more requests of a bucket than this.
  private let splitCellsAbove: Int

  fileprivate static let dayMs: Int64 = 86_400_000
  /// The chain's end.
  fileprivate static let noRequest = Int64.min

  /// A request as its list keeps it, less its filing: what a search reads once the filing let
  /// it through.
  fileprivate struct Entry {
    var id: Int64
    var playerID: Int64
    var startUnixMs: Int64
    var postedAtUnixMs: Int64
    var latitude: Double
    var longitude: Double
    var radiusMiles: Double
    var durationMs: Int32
    /// The cell others are shown (`LocationPrivacy.place(of:)`), kept in what would otherwise
    /// be the entry's padding, so that a search finds the shown position without working out
    /// the cell again for every request it looks at.
    var shownRow: UInt16
    var shownColumn: UInt16

    /// The position others are shown: the centre of the shown cell.
    var shownPosition: Coordinate {
      LocationPrivacy.cell(row: Int(shownRow), column: Int(shownColumn)).centre
    }

    var endUnixMs: Int64 { startUnixMs + Int64(durationMs) }
  }

  /// A request as a search first sees it: its slot (to the whole minute, widened outwards),
  /// latitude (single precision), its player's level and its skill tolerance, for the quick
  /// tests of a search.
  fileprivate struct Filing {
    var startMinute: Int32
    var endMinute: Int32
    var latitude: Float
    var level: Int8
    var skillTolerance: Int8

    init(_ request: MatchRequest) {
      // Floor the start and ceil the end, so the copy never covers less than the slot; a slot
      // beyond what 32-bit minutes hold (before 2113 BC or after 6052) is marked with
      // the widest range, and `mayOverlap` leaves it to the exact rules.
      if let start = Int32(exactly: MatchIndex.floorDivide(request.slot.startUnixMs, 60_000)),
        let end = Int32(exactly: -MatchIndex.floorDivide(-request.slot.endUnixMs, 60_000))
      {
        self.startMinute = start
        self.endMinute = end
      } else {
        self.startMinute = .min
        self.endMinute = .max
      }
      self.latitude = Float(request.location.latitude)
      self.level = Int8(request.displayLevel)
      self.skillTolerance = Int8(request.skillTolerance)
    }

    /// False only when the slot cannot share `minimum` minutes with the query's minutes.
    func mayOverlap(_ queryStart: Int64, _ queryEnd: Int64, minimum: Int64) -> Bool {
      startMinute == .min
        || min(Int64(endMinute), queryEnd) - max(Int64(startMinute), queryStart) >= minimum
    }
  }

  /// What a slot of a chunk says of its request: on since version `a` (the stamp `a`), or taken
  /// off at version `r` (the stamp `r | off`). A snapshot of version `w` shows a request on since
  /// `a <= w` and one taken off at `r > w`; the writer's own version (`writer`) shows every
  /// request on and none taken off.
  ///
  /// An index over shared places counts its snapshots' versions (`Versions`) and changes the
  /// chunks its snapshots share in place: a post writes past the slots a snapshot counted, a
  /// cancel stamps its slot, and each snapshot goes on showing what it showed. A plain index
  /// stamps every request 0, and changes a chunk a copy of it shares only after copying it.
  fileprivate enum Stamp {
    static let off: UInt64 = 1 << 63
    /// The writer's version: later than any snapshot's.
    static let writer: UInt64 = off - 1

    /// Whether a snapshot of `version` shows the request whose slot is stamped `stamp`.
    @inline(__always)
    static func shows(_ stamp: UInt64, at version: UInt64) -> Bool {
      stamp < off ? stamp <= version : version < stamp ^ off
    }

    /// The stamp a copy of a slot gets: a copy is read only by versions later than every stamp
    /// there is, which show each request on and none taken off, as stamps of 0 say.
    @inline(__always)
    static func settled(_ stamp: UInt64) -> UInt64 { stamp < off ? 0 : off }
  }

  /// The snapshots of an index over shared places that may still be read, oldest first, and
  /// the count of versions: a snapshot taken is the next version, and the changes made after
  /// it are stamped with the one after (see `Stamp`).
  ///
  /// Changed without a lock, by the one thread that changes the index (as `Places`); a
  /// snapshot's pin is let go of on whatever thread drops the snapshot, and is known to be let
  /// go of once the list holds its only reference.
  fileprivate final class Versions: @unchecked Sendable {
    /// A snapshot's version, referenced by every copy of the snapshot.
    final class Pin: Sendable {
      let version: UInt64
      init(version: UInt64) { self.version = version }
    }

    /// The version of the last snapshot taken.
    private var clock: UInt64 = 0
    /// The pins of the snapshots taken, oldest first from `head`.
    private var pins: [Pin?] = []
    private var head = 0

    /// The version the changes made now belong to: the next snapshot's.
    var next: UInt64 { clock + 1 }

    /// Pins the next version, for a snapshot to hold.
    func pin() -> Pin {
      clock += 1
      let pin = Pin(version: clock)
      pins.append(pin)
      dropUnread()
      return pin
    }

    /// The version of the oldest snapshot that may still be read; `Stamp.writer` when none may.
    /// (Snapshots are let go of about in the order they were taken; one kept longer holds up
    /// the newer ones behind it, which only makes this older than it need be.)
    func oldestRead() -> UInt64 {
      dropUnread()
      return head < pins.count ? pins[head]!.version : Stamp.writer
    }

    private func dropUnread() {
      while head < pins.count, isKnownUniquelyReferenced(&pins[head]) {
        pins[head] = nil
        head += 1
      }
      if head >= 64, head * 2 >= pins.count {
        pins.removeFirst(head)
        head = 0
      }
    }
  }

  /// Up to `List.chunkSize` requests of one list, in one allocation: the count of slots used,
  /// then the requests' filings, entries and stamps, at the same offsets; the header is the
  /// room. Slots are used in order and never again: a request taken off leaves its slot stamped
  /// as a hole, until its list is packed into new chunks (`MatchIndex.takeOff`).
  ///
  /// Searches on other threads may read a chunk while the writer changes it, in the two ways
  /// stamps allow and no other: the writer fills the slot past the count and then stores the
  /// count (releasing; a search loads it acquiring, so it sees every slot it counts whole), and
  /// it stamps a request's slot as taken off (a single word, stored and loaded atomically).
  /// Any other change, a level or a slot used again, goes to a chunk no version but the
  /// writer's holds (see `List.ownChunk`), copied first when one does. A chunk starts with room
  /// for a few requests and is copied into one with twice the room when it fills, so a short
  /// list costs little more than its requests.
  ///
  /// (A list holding chunks is `@unchecked Sendable`: a managed buffer cannot be `Sendable`.)
  fileprivate final class Chunk: ManagedBuffer<Int, UInt8> {
    private static let countBytes = MemoryLayout<Atomic<Int>>.stride
    private static let bytesPerRequest =
      MemoryLayout<Filing>.stride + MemoryLayout<Entry>.stride
      + MemoryLayout<Atomic<UInt64>>.stride

    /// An empty chunk with room for `capacity` requests.
    static func make(capacity: Int) -> Chunk {
      let chunk = unsafeDowncast(
        create(minimumCapacity: countBytes + capacity * bytesPerRequest) { _ in capacity },
        to: Chunk.self)
      chunk.withUnsafeMutablePointerToElements { bytes in
        let raw = UnsafeMutableRawPointer(bytes)
        // Each part needs its alignment where it starts.
        precondition(
          Int(bitPattern: raw) % MemoryLayout<Entry>.alignment == 0
            && countBytes % MemoryLayout<Entry>.alignment == 0
            && MemoryLayout<Filing>.stride % MemoryLayout<Entry>.alignment == 0
            && MemoryLayout<Entry>.stride % MemoryLayout<Atomic<UInt64>>.alignment == 0)
        raw.bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic(0))
        _ = (raw + countBytes).bindMemory(to: Filing.self, capacity: capacity)
        _ = (raw + countBytes + capacity * MemoryLayout<Filing>.stride).bindMemory(
          to: Entry.self, capacity: capacity)
        let stamps =
          (raw + countBytes
          + capacity * (MemoryLayout<Filing>.stride + MemoryLayout<Entry>.stride))
          .bindMemory(to: Atomic<UInt64>.self, capacity: capacity)
        for offset in 0..<capacity { (stamps + offset).initialize(to: Atomic(0)) }
      }
      return chunk
    }

    /// An empty chunk with room for `capacity` requests: one from `pool` when it has one of
    /// that room (or a few more), else a new one.
    static func fresh(capacity: Int, pool: ChunkPool?) -> Chunk {
      guard let chunk = pool?.take(room: capacity) else { return make(capacity: capacity) }
      chunk.withSlots { $0.counter[0].store(0, ordering: .releasing) }
      return chunk
    }

    /// Slots used, holes among them (loaded acquiring: see the type).
    var count: Int { withSlots { $0.count } }
    var room: Int { header }

    /// Calls `body` with the chunk's slots.
    func withSlots<Result>(_ body: (Slots) throws -> Result) rethrows -> Result {
      let capacity = header
      return try withUnsafeMutablePointerToElements { bytes in
        let raw = UnsafeMutableRawPointer(bytes)
        let counter = raw.assumingMemoryBound(to: Atomic<Int>.self)
        let filings = (raw + Self.countBytes).assumingMemoryBound(to: Filing.self)
        let entries = (raw + Self.countBytes + capacity * MemoryLayout<Filing>.stride)
          .assumingMemoryBound(to: Entry.self)
        let stamps = UnsafeMutableRawPointer(entries + capacity).assumingMemoryBound(
          to: Atomic<UInt64>.self)
        return try body(
          Slots(
            count: counter[0].load(ordering: .acquiring), counter: counter, filings: filings,
            entries: entries, stamps: stamps))
      }
    }

    func request(at offset: Int) -> (Filing, Entry) {
      withSlots { ($0.filings[offset], $0.entries[offset]) }
    }

    func stamp(at offset: Int) -> UInt64 { withSlots { $0.stamp(offset) } }

    func setStamp(_ stamp: UInt64, at offset: Int) {
      withSlots { $0.stamps[offset].store(stamp, ordering: .relaxed) }
    }

    /// Puts `filing` and `entry` in a used slot: only in a chunk no other version holds.
    func set(_ filing: Filing, _ entry: Entry, at offset: Int) {
      withSlots {
        $0.filings[offset] = filing
        $0.entries[offset] = entry
      }
    }

    /// Fills the next slot and then counts it; the chunk must have room.
    func append(_ filing: Filing, _ entry: Entry, stamp: UInt64) {
      withSlots { slots in
        precondition(slots.count < header)
        slots.filings[slots.count] = filing
        slots.entries[slots.count] = entry
        slots.stamps[slots.count].store(stamp, ordering: .relaxed)
        slots.counter[0].store(slots.count + 1, ordering: .releasing)
      }
    }

    /// A chunk of its own with the same slots and room for `capacity`, their stamps settled
    /// (`Stamp.settled`): one from `pool` when it has one of that room, else a new one.
    func copy(capacity: Int, pool: ChunkPool? = nil) -> Chunk {
      let copy = pool?.take(room: capacity) ?? Chunk.make(capacity: capacity)
      withSlots { slots in
        copy.withSlots { copied in
          copied.filings.update(from: slots.filings, count: slots.count)
          copied.entries.update(from: slots.entries, count: slots.count)
          for offset in 0..<slots.count {
            copied.stamps[offset].store(Stamp.settled(slots.stamp(offset)), ordering: .relaxed)
          }
          copied.counter[0].store(slots.count, ordering: .releasing)
        }
      }
      return copy
    }
  }

  /// A chunk's slots, as `Chunk.withSlots` lends them: the count of those used when it was
  /// loaded, and where each part of them is.
  fileprivate struct Slots {
    let count: Int
    let counter: UnsafeMutablePointer<Atomic<Int>>
    let filings: UnsafeMutablePointer<Filing>
    let entries: UnsafeMutablePointer<Entry>
    let stamps: UnsafeMutablePointer<Atomic<UInt64>>

    @inline(__always)
    func stamp(_ offset: Int) -> UInt64 { stamps[offset].load(ordering: .relaxed) }

    /// Whether the slot holds a request the writer's version has (not a hole).
    @inline(__always)
    func isOn(_ offset: Int) -> Bool { stamp(offset) < Stamp.off }
  }

  /// The chunks the writer of a board's indexes replaced by copies, kept so that its later
  /// copies reuse them once no version holds them, instead of allocating.
  ///
  /// A chunk copied at a change stays held by the versions published before; when the last of
  /// them is freed, by the writer, the chunk would go back to the allocator, and the writer's
  /// next copy would ask it for another. glibc's allocator gives each thread an arena of its own
  /// and takes memory back into the arena it came from: a chunk loaded at start, or copied by the
  /// thread that applied the transaction before, went back to another thread's arena, and the
  /// writer's copies took fresh pages from the kernel, zeroed at their first touch (up to two
  /// fifths of the writer's time at ten million requests, docs/benchmarks-history.md). Kept
  /// here, the chunk's memory is reused whichever thread made it, with no allocation (unless
  /// none of the room a copy needs is free).
  ///
  /// Changed in place without a lock: only the one thread changing the indexes at a time uses it
  /// (the board's writer, under its lock), as with `Places`.
  fileprivate final class ChunkPool: @unchecked Sendable {
    /// Chunks kept waiting at most: enough for the writer's copies while a search that lost its
    /// core holds an old version (tens of milliseconds at tens of thousands of publications a
    /// second), so that the chunks that version held are reused once it goes rather than
    /// handed back to the allocator. Waiting chunks cost nothing the versions holding them do
    /// not already.
    static let waitingLimit = 4096
    /// Chunks kept free at most (each at most 12 KB): what a long-held version lets go of at
    /// once, for the copies after it.
    static let freeLimit = 1024
    /// A copy takes a free chunk with room for this many requests more than it needs, at most.
    static let slack = 4
    /// Chunks replaced by a copy, oldest first from `head`: versions may still hold them.
    private var waiting: [Chunk?] = []
    private var head = 0
    /// Chunks no version holds, by room.
    private var free = [[Chunk]](repeating: [], count: List.chunkSize + 1)
    private var freeCount = 0

    /// Keeps `chunk`, which a copy replaced, until no version holds it.
    func retire(_ chunk: Chunk) {
      if waiting.count - head >= Self.waitingLimit {
        // The oldest goes back to the allocator once its versions are freed.
        waiting[head] = nil
        head += 1
      }
      waiting.append(chunk)
      if head >= Self.waitingLimit, head * 2 >= waiting.count {
        waiting.removeFirst(head)
        head = 0
      }
    }

    /// A chunk no version holds with room for `room` requests (or a few more), or nil.
    func take(room: Int) -> Chunk? {
      collect()
      guard freeCount > 0 else { return nil }
      for candidate in room...min(room + Self.slack, List.chunkSize) {
        if let chunk = free[candidate].popLast() {
          freeCount -= 1
          return chunk
        }
      }
      return nil
    }

    /// Lets go of every chunk kept (after a load, before the memory is handed back).
    func empty() {
      waiting = []
      head = 0
      free = [[Chunk]](repeating: [], count: List.chunkSize + 1)
      freeCount = 0
    }

    /// Moves the oldest waiting chunks that no version holds any more to the free ones. Versions
    /// are freed about in the order they were published, so the oldest go first; one a long
    /// search still reads holds up the rest until it ends.
    private func collect() {
      while head < waiting.count, isKnownUniquelyReferenced(&waiting[head]) {
        let chunk = waiting[head]!
        waiting[head] = nil
        head += 1
        if freeCount < Self.freeLimit {
          free[chunk.room].append(chunk)
          freeCount += 1
        }
      }
    }
  }

  /// The requests of one bucket in one grid cell at one level, in chunks, the chunks in
  /// segments: every chunk but the last has all its slots used and every segment but the last
  /// is full, so position `p` is in chunk `p / chunkSize`. Positions count holes (slots of
  /// requests taken off) as the chunks do, so a request keeps its position until the list is
  /// packed. A change that is not made in place copies the one segment and chunk it touches
  /// (and the list of segments) when a snapshot shares them, whatever the list's length.
  fileprivate struct List: @unchecked Sendable {
    static let chunkSize = 128
    static let segmentSize = 32
    /// The room a list's first chunk starts with.
    static let firstRoom = 4
    var segments: [[Chunk]] = []

    /// The last chunk; nil for an empty list.
    var last: Chunk? { segments.last?.last }

    /// Slots used, holes among them.
    var count: Int {
      guard let last = segments.last?.last else { return 0 }
      let chunks = (segments.count - 1) * Self.segmentSize + segments[segments.count - 1].count
      return (chunks - 1) * Self.chunkSize + last.count
    }

    /// The chunk holding `position` when the list has that position (a used slot), else nil.
    /// Only that chunk is looked at: every chunk before the last is full.
    func chunk(holding position: Int) -> Chunk? {
      let number = position / Self.chunkSize
      let segment = number / Self.segmentSize
      guard segment < segments.count, number % Self.segmentSize < segments[segment].count else {
        return nil
      }
      let chunk = segments[segment][number % Self.segmentSize]
      return position % Self.chunkSize < chunk.count ? chunk : nil
    }

    /// The chunk holding `position`.
    func chunk(at position: Int) -> Chunk {
      let number = position / Self.chunkSize
      return segments[number / Self.segmentSize][number % Self.segmentSize]
    }

    /// The chunk holding `position`, copied first (with its segment) when a snapshot holds it,
    /// with the same room; the chunk copied goes to `pool`, for a later copy once no version
    /// holds it.
    mutating func ownChunk(at position: Int, pool: ChunkPool?) -> Chunk {
      let number = position / Self.chunkSize
      let segment = number / Self.segmentSize
      let place = number % Self.segmentSize
      if !isKnownUniquelyReferenced(&segments[segment][place]) {
        let chunk = segments[segment][place]
        segments[segment][place] = chunk.copy(capacity: chunk.room, pool: pool)
        pool?.retire(chunk)
      }
      return segments[segment][place]
    }

    /// Whether the last chunk has room it does not use.
    var hasSpareRoom: Bool {
      guard let last else { return false }
      return last.room > last.count
    }

    /// Gives the last chunk exactly the room its slots take.
    mutating func trim() {
      guard let last, last.room > last.count else { return }
      segments[segments.count - 1][segments[segments.count - 1].count - 1] = last.copy(
        capacity: last.count)
    }

    /// Adds a request at the end, in a chunk of the writer's own (copied, with more room when
    /// it has none, if need be); returns its position.
    mutating func append(
      _ filing: Filing, _ entry: Entry, stamp: UInt64, pool: ChunkPool? = nil
    ) -> Int {
      let count = self.count
      if count % Self.chunkSize == 0 {
        if (count / Self.chunkSize) % Self.segmentSize == 0 { segments.append([]) }
        let chunk = Chunk.fresh(
          capacity: count == 0 ? Self.firstRoom : Self.chunkSize, pool: pool)
        chunk.append(filing, entry, stamp: stamp)
        segments[segments.count - 1].append(chunk)
        return count
      }
      let number = count / Self.chunkSize
      let (segment, place) = (number / Self.segmentSize, number % Self.segmentSize)
      if !isKnownUniquelyReferenced(&segments[segment][place])
        || segments[segment][place].count == segments[segment][place].room
      {
        let chunk = segments[segment][place]
        let room = chunk.count < chunk.room ? chunk.room : min(chunk.room * 2, Self.chunkSize)
        segments[segment][place] = chunk.copy(capacity: room, pool: pool)
        pool?.retire(chunk)
      }
      segments[segment][place].append(filing, entry, stamp: stamp)
      return count
    }

    /// Puts `filing` and `entry` at `position` instead of what is there.
    mutating func replace(
      at position: Int, _ filing: Filing, _ entry: Entry, pool: ChunkPool?
    ) {
      ownChunk(at: position, pool: pool).set(filing, entry, at: position % Self.chunkSize)
    }

    /// Stamps the request at `position` taken off, in a chunk of the writer's own.
    mutating func stampOff(at position: Int, stamp: UInt64, pool: ChunkPool?) {
      ownChunk(at: position, pool: pool).setStamp(stamp, at: position % Self.chunkSize)
    }

    /// The requests the writer's version has (holes left out), in order.
    var requests: [(Filing, Entry)] {
      var result: [(Filing, Entry)] = []
      for segment in segments {
        for chunk in segment {
          chunk.withSlots { slots in
            for offset in 0..<slots.count where slots.isOn(offset) {
              result.append((slots.filings[offset], slots.entries[offset]))
            }
          }
        }
      }
      return result
    }

    /// A list of `requests`, in order and with no holes (request `i` at position `i`): full
    /// chunks, and a last one with room for a few more.
    static func packed(_ requests: [(Filing, Entry)], pool: ChunkPool?) -> List {
      var list = List()
      var start = 0
      while start < requests.count {
        let count = min(Self.chunkSize, requests.count - start)
        let chunk = Chunk.fresh(
          capacity: min(count + max(count / 4, Self.firstRoom), Self.chunkSize), pool: pool)
        for (filing, entry) in requests[start..<start + count] {
          chunk.append(filing, entry, stamp: 0)
        }
        if list.segments.last.map({ $0.count == Self.segmentSize }) ?? true {
          list.segments.append([])
        }
        list.segments[list.segments.count - 1].append(chunk)
        start += count
      }
      return list
    }

    /// Hands every chunk to `pool`, for later copies once no version holds them.
    func retireChunks(to pool: ChunkPool?) {
      guard let pool else { return }
      for segment in segments {
        for chunk in segment { pool.retire(chunk) }
      }
    }
  }

  /// The requests of one bucket in one grid cell: one list while the cell holds few, and a
  /// list per level once it holds more than the index's `splitCellsAbove`, so that a search of a crowded cell
  /// visits the levels nearest the searcher's first and stops once no further level can make
  /// the page, while a quiet cell costs one list. The lists sit behind one reference, so a copy
  /// of a bucket's table of cells costs what it would with one list per cell.
  fileprivate struct Cell {
    /// One list of every level (list level 0) until the cell is split; then the list of each
    /// level, at `level - 1`.
    var lists = [List()]

    var isSplit: Bool { lists.count > 1 }

    /// Whether every list is empty (an emptied list is replaced by an empty one at once).
    var isEmpty: Bool { lists.allSatisfy { $0.segments.isEmpty } }

    /// The list level a request of `level` goes in: its level once the cell is split, else 0.
    func listLevel(_ level: Int8) -> Int8 { isSplit ? level : 0 }

    /// The list of list level `listLevel`.
    subscript(listLevel: Int8) -> List {
      get { lists[Int(max(listLevel, 1)) - 1] }
      _modify { yield &lists[Int(max(listLevel, 1)) - 1] }
    }
  }

  /// The cells of one bucket by number, in 64 tables by the number's hash, so that a change a
  /// snapshot shares copies the one table it reaches, a sixty-fourth of the cells, and the list
  /// of tables, not every cell of the bucket.
  fileprivate struct Cells {
    private static let bits = 6
    private var tables = [[Int: Cell]](repeating: [:], count: 1 << bits)

    @inline(__always)
    private static func table(_ number: Int) -> Int {
      Int(
        truncatingIfNeeded: (UInt64(bitPattern: Int64(number)) &* 0x9E37_79B9_7F4A_7C15)
          >> (64 - bits))
    }

    subscript(number: Int) -> Cell? {
      get { tables[Self.table(number)][number] }
      _modify { yield &tables[Self.table(number)][number] }
    }

    subscript(number: Int, default value: @autoclosure () -> Cell) -> Cell {
      get { tables[Self.table(number)][number, default: value()] }
      _modify { yield &tables[Self.table(number)][number, default: value()] }
    }

    var isEmpty: Bool { tables.allSatisfy(\.isEmpty) }

    /// Every cell and its number, in no particular order.
    var all: some Sequence<(key: Int, value: Cell)> { tables.lazy.flatMap { $0 } }
  }

  /// Requests of one mode whose slots start on one UTC day, and whether they run into the
  /// next (a slot lasts at most 8 hours, so it touches at most two days).
  fileprivate struct BucketKey: Hashable {
    var day: Int64
    var mode: MatchMode
    var spills: Bool

    /// The fields in one word for hashing (equality still compares each field).
    var mixed: Int64 { day &* 8 &+ Int64(mode.rawValue) &* 2 &+ (spills ? 1 : 0) }

    func hash(into hasher: inout Hasher) { hasher.combine(mixed) }
  }

  /// One list: a bucket's requests in one grid cell, of one level or (level 0) of every level.
  fileprivate struct ListKey: Hashable {
    var bucket: BucketKey
    var cell: Int
    var level: Int8

    func hash(into hasher: inout Hasher) {
      hasher.combine(
        (bucket.mixed &* 0x61C8_8647 ^ Int64(truncatingIfNeeded: cell)) &* 16 &+ Int64(level))
    }
  }

  /// Where a request stands, and the player's next older request (`noRequest` for none).
  fileprivate struct Place {
    var list: Int32
    var position: Int32
    var nextOfPlayer: Int64
  }

  /// Where the requests of one or more indexes stand, by request id. Indexes made over one
  /// `Places` must never hold the same request id at once (a board's parts do not: a request is
  /// in one part), and such an index is no longer a plain value: a copy of it shares the places
  /// with it, so only one of the two may be changed afterwards.
  ///
  /// A player's requests are chained through their places, newest first, across all the
  /// indexes: `newest` holds the head of each player's chain.
  ///
  /// The table is changed in place and takes no lock: only one thread at a time may use the
  /// indexes made over one `Places` (the board's writer does, under its lock). What searches
  /// on other threads read is the indexes' snapshots, which never touch it.
  public struct Places: Sendable {
    fileprivate var table: IDTable<Place>
    /// The newest request of each player; the others follow through their places' chain.
    fileprivate var newest: IDTable<Int64>
    /// False for an index's own places, which are copied before a change when the index was.
    fileprivate let shared: Bool
    /// The chunks the indexes' writer copied, kept for its later copies (shared places only:
    /// an index with its own is a plain value, whose copies may change on other threads).
    fileprivate let chunks: ChunkPool?
    /// The versions of every snapshot of the indexes, counted together (shared places only),
    /// so that one moment (`pin()`) says what all of them show.
    fileprivate let versions: Versions?

    /// Places for indexes to share.
    public init() {
      self.init(
        table: IDTable(), newest: IDTable(), shared: true, chunks: ChunkPool(),
        versions: Versions())
    }

    /// Whether one of the indexes made over these places holds request `requestID`.
    public func holds(_ requestID: Int64) -> Bool { table[requestID] != nil }

    /// The next version of the indexes made over these places, for their shapes to be read at
    /// (`Snapshot.at(_:)`): the changes made before it are in it, those made after are not.
    public func pin() -> Moment { Moment(pin: versions!.pin()) }

    fileprivate init(
      table: IDTable<Place>, newest: IDTable<Int64>, shared: Bool, chunks: ChunkPool? = nil,
      versions: Versions? = nil
    ) {
      self.table = table
      self.newest = newest
      self.shared = shared
      self.chunks = chunks
      self.versions = versions
    }
  }

  /// One version of the indexes made over shared places (`Places.pin()`): a value whose
  /// copies keep the version readable, so that the indexes keep what it shows.
  public struct Moment: Sendable {
    fileprivate let pin: Versions.Pin
  }

  /// An empty index whose grid cells are `cellDegrees` on a side (default 0.25 degrees).
  ///
  /// A cell holding more than `splitCellsAbove` requests of a bucket keeps a list per level
  /// (default 128): fewer lists cost less memory, more let a crowded cell's search pass over the
  /// levels that cannot make its page.
  ///
  /// With `places`, the index keeps where its requests stand in that table, shared with the
  /// other indexes made over it (see `Places`); without, in a table of its own, and the index is
  /// a plain value.
  public init(cellDegrees: Double = 0.25, splitCellsAbove: Int = 128, places: Places? = nil) {
    precondition(splitCellsAbove >= 0)
    current = Snapshot(grid: GeoGrid(cellDegrees: cellDegrees))
    self.splitCellsAbove = splitCellsAbove
    self.places = places ?? Places(table: IDTable(), newest: IDTable(), shared: false)
  }

  /// What a search reads: every request, as the index holds it now, in a value no later change
  /// to the index alters.
  ///
  /// The snapshot of an index over shared places is the next of the index's versions: the
  /// index changes the chunks it shares with its snapshots in place, in ways that leave what
  /// each shows as it was (see `Stamp`), for as long as any copy of it is kept.
  public var snapshot: Snapshot {
    guard let versions else { return current }
    return current.at(Moment(pin: versions.pin()))
  }

  /// Whether the index changed, since its shape was last taken (`takeShape()`), in a way its
  /// chunks' stamps cannot show: a chunk, list or cell made, copied or dropped. Until it does,
  /// the shape taken last, read at any later moment of the index's places (`Snapshot.at(_:)`),
  /// shows what the index held then. (Always true for a plain index's changes.)
  public var isReshaped: Bool { current.reshaped }

  /// The index's shape now: its snapshot, to be read at a moment of its places
  /// (`Snapshot.at(_:)`, taken after this) rather than as it is. A board keeps one shape per
  /// index and takes a new one only when the index `isReshaped`, so that a transaction that
  /// changed chunks in place publishes one moment and no index's snapshot.
  public mutating func takeShape() -> Snapshot {
    current.reshaped = false
    return current
  }

  /// The stamp of a request put on now.
  private var stampOn: UInt64 { versions?.next ?? 0 }

  /// The place of `requestID` when the request is in this index.
  private func place(of requestID: Int64) -> Place? { stand(of: requestID)?.place }

  /// Where `requestID` stands when the request is in this index: its place, what its list
  /// holds of it, and (over shared places, whose chunks change in place) the chunk it is in.
  /// The shared table may hold the id for another index, whose list of the same number may be
  /// live here too, so the request standing at the place must be the one asked for.
  private func stand(of requestID: Int64) -> (
    place: Place, filing: Filing, entry: Entry, chunk: Chunk?
  )? {
    guard let place = places.table[requestID], Int(place.list) < lists.count,
      let chunk = current.chunk(in: lists[Int(place.list)], at: Int(place.position))
    else { return nil }
    let offset = Int(place.position) % List.chunkSize
    let found = chunk.withSlots { slots -> (Filing, Entry)? in
      guard slots.isOn(offset), slots.entries[offset].id == requestID else { return nil }
      return (slots.filings[offset], slots.entries[offset])
    }
    guard let (filing, entry) = found else { return nil }
    // A plain index changes only chunks of its own, which a reference held here would share.
    return (place, filing, entry, versions == nil ? nil : chunk)
  }

  /// Copies the places table first when it is the index's own and a copy of the index holds it
  /// too, so that a change to one copy never shows in the other. Called before every change,
  /// with no other reference to the table held meanwhile.
  private mutating func ownPlaces() {
    if !places.shared, !isKnownUniquelyReferenced(&places.table) {
      places = Places(
        table: IDTable(copying: places.table), newest: IDTable(copying: places.newest),
        shared: false)
    }
  }

  /// The request with id `requestID`, with its player's current level.
  public func request(_ requestID: Int64) -> MatchRequest? {
    place(of: requestID).map {
      current.request(in: lists[Int($0.list)], at: Int($0.position))
    }
  }

  /// Whether the request with id `requestID` is in the index.
  public func contains(_ requestID: Int64) -> Bool { place(of: requestID) != nil }

  /// Whether the index holds any request of `playerID`.
  public func hasRequests(of playerID: Int64) -> Bool { newestOwn(of: playerID) != nil }

  /// The newest request of `playerID` in this index, with its place: the first of the player's
  /// chain that stands here.
  private func newestOwn(of playerID: Int64) -> Place? {
    var next = places.newest[playerID] ?? Self.noRequest
    while next != Self.noRequest {
      if let place = place(of: next) { return place }
      next = places.table[next]!.nextOfPlayer
    }
    return nil
  }

  /// Every request in the index, with its player's current level, in no particular order.
  public var requests: [MatchRequest] { current.requests }

  /// Adds `request`, replacing a request with the same id. The request's level becomes its
  /// player's level for all of the player's requests. The slot must last at most 8 hours.
  ///
  /// `levelKept`: the caller knows every other request of the player in the index already has
  /// `request.displayLevel` (a board that sets a player's level on all their requests before it
  /// indexes one with it), so the player's requests are not looked at for a level to change.
  public mutating func insert(_ request: MatchRequest, levelKept: Bool = false) {
    precondition(
      request.slot.startUnixMs < request.slot.endUnixMs
        && request.slot.durationMs <= TimeSlotRules.maximumDurationSeconds * 1000,
      "a request's slot lasts more than 0 and at most 8 hours")
    precondition(PlayerRules.allLevels.contains(request.displayLevel), "level out of range")
    precondition(MatchRules.skillTolerances.contains(request.skillTolerance), "bad tolerance")
    remove(request.id)
    // Another index over the same places holding the id would lose it (and could chain the
    // id to itself): the caller must take it out of that index first.
    precondition(places.table[request.id] == nil, "the request is in another index")
    let shown = LocationPrivacy.place(of: request.location)
    let entry = Entry(
      id: request.id, playerID: request.playerID, startUnixMs: request.slot.startUnixMs,
      postedAtUnixMs: request.postedAtUnixMs, latitude: request.location.latitude,
      longitude: request.location.longitude, radiusMiles: request.radiusMiles,
      durationMs: Int32(request.slot.durationMs), shownRow: UInt16(shown.row),
      shownColumn: UInt16(shown.column))
    let day = Self.day(of: request.slot.startUnixMs)
    let bucket = BucketKey(
      day: day, mode: request.mode, spills: Self.day(of: request.slot.endUnixMs - 1) > day)
    let cell = current.grid.cell(of: request.location)
    let level = Int8(request.displayLevel)
    // Every request of a player carries the player's level: the others change only when the
    // newest of them (and so all) has another.
    ownPlaces()
    let older = levelKept ? nil : newestOwn(of: request.playerID)
    assert(
      !levelKept
        || newestOwn(of: request.playerID).map {
          current.read(lists[Int($0.list)], at: Int($0.position)).filing.level == level
        } != false, "levelKept for a player whose requests have another level")
    let key: ListKey
    let position: Int
    if versions != nil,
      let placed = current.appendInPlace(
        Filing(request), entry, bucket: bucket, cell: cell, stamp: stampOn)
    {
      (key, position) = (placed.key, placed.position)
    } else {
      key = ListKey(
        bucket: bucket, cell: cell, level: current.listLevel(of: level, in: bucket, cell))
      position = current.append(
        Filing(request), entry, to: key, stamp: stampOn, pool: places.chunks)
    }
    let number = listNumber(key)
    onCounts[Int(number)] += 1
    places.table[request.id] = Place(
      list: number, position: Int32(position),
      nextOfPlayer: places.newest[request.playerID] ?? Self.noRequest)
    places.newest[request.playerID] = request.id
    count += 1
    if let older,
      current.read(lists[Int(older.list)], at: Int(older.position)).filing.level != level
    {
      setLevel(level, of: request.playerID)
    }
    if key.level == 0, onCounts[Int(number)] > splitCellsAbove {
      split(bucket, cell)
    }
  }

  /// Splits the cell's one list into a list per level.
  private mutating func split(_ bucket: BucketKey, _ cell: Int) {
    let whole = ListKey(bucket: bucket, cell: cell, level: 0)
    ownPlaces()
    for (id, level, position) in current.split(bucket, cell, pool: places.chunks) {
      let number = listNumber(ListKey(bucket: bucket, cell: cell, level: level))
      onCounts[Int(number)] += 1
      places.table.update(id) {
        $0.list = number
        $0.position = Int32(position)
      }
    }
    freeListNumbers.append(listNumbers.removeValue(forKey: whole)!)
  }

  /// Removes the request with id `requestID` and returns it, if it was there.
  @discardableResult
  public mutating func remove(_ requestID: Int64) -> MatchRequest? {
    guard let (place, filing, entry, chunk) = stand(of: requestID) else { return nil }
    ownPlaces()
    places.table[requestID] = nil
    count -= 1
    let removed = Snapshot.request(filing, entry, lists[Int(place.list)].bucket.mode)
    let next = place.nextOfPlayer
    // Out of the player's chain: the newest is in `newest`, each older one after its newer
    // (which may stand in another index over the same places).
    if places.newest[removed.playerID] == requestID {
      places.newest[removed.playerID] = next == Self.noRequest ? nil : next
    } else {
      var newer = places.newest[removed.playerID]!
      while true {
        let older = places.table[newer]!.nextOfPlayer
        if older == requestID {
          places.table.update(newer) { $0.nextOfPlayer = next }
          break
        }
        newer = older
      }
    }
    takeOff(place, in: chunk)
    return removed
  }

  /// Holes a list holding `on` requests keeps before it is packed: at most half as many as
  /// its requests (and a few), so that the room holes take stays within a third of a list's,
  /// and packing, which moves every request, costs a few moves for each request taken off.
  private static func holesKept(_ on: Int32) -> Int32 { on / 2 + 4 }

  /// Takes the request at `place` off its list, leaving a hole; packs the list into new chunks
  /// when it holds more holes than `holesKept`, and drops it when it holds no request.
  /// `chunk`: the chunk the request is in, when the caller has it.
  private mutating func takeOff(_ place: Place, in chunk: Chunk? = nil) {
    let number = Int(place.list)
    let key = lists[number]
    current.takeOff(
      key, at: Int(place.position), in: chunk, stamp: (versions?.next ?? 0) | Stamp.off,
      oldestRead: versions?.oldestRead(), pool: places.chunks)
    onCounts[number] -= 1
    holeCounts[number] += 1
    if onCounts[number] == 0 {
      current.drop(key, pool: places.chunks)
      listNumbers[key] = nil
      freeListNumbers.append(place.list)
    } else if holeCounts[number] > Self.holesKept(onCounts[number]) {
      ownPlaces()
      for (position, id) in current.pack(key, pool: places.chunks).enumerated() {
        places.table.update(id) { $0.position = Int32(position) }
      }
      holeCounts[number] = 0
    }
  }

  /// Sets the level of every request of `playerID`; a player without requests is ignored.
  public mutating func updateLevel(playerID: Int64, level: Int) {
    precondition(PlayerRules.allLevels.contains(level), "level out of range")
    setLevel(Int8(level), of: playerID)
  }

  /// Sets `level` on every request of `playerID` whose level differs: in place in a cell's one
  /// list, by a move to the list of `level` in a split cell. The chain of the player's requests
  /// stays as it was.
  private mutating func setLevel(_ level: Int8, of playerID: Int64) {
    guard places.newest[playerID] != nil else { return }
    ownPlaces()
    var next = places.newest[playerID] ?? Self.noRequest
    while next != Self.noRequest {
      let id = next
      // Requests of the chain that stand in another index are passed by.
      guard let at = place(of: id) else {
        next = places.table[id]!.nextOfPlayer
        continue
      }
      next = at.nextOfPlayer
      var key = lists[Int(at.list)]
      var (filing, entry) = current.read(key, at: Int(at.position))
      guard filing.level != level else { continue }
      guard key.level != 0 else {
        filing.level = level
        current.replace(in: key, at: Int(at.position), filing, entry, pool: places.chunks)
        continue
      }
      takeOff(at)
      filing.level = level
      // Asked after the take-off, which may have emptied the cell and so removed it.
      key.level = current.listLevel(of: level, in: key.bucket, key.cell)
      let number = listNumber(key)
      let position = current.append(filing, entry, to: key, stamp: stampOn, pool: places.chunks)
      onCounts[Int(number)] += 1
      places.table[id] = Place(
        list: number, position: Int32(position), nextOfPlayer: at.nextOfPlayer)
    }
  }

  /// The number of list `key`, given one when it has none.
  private mutating func listNumber(_ key: ListKey) -> Int32 {
    if let number = listNumbers[key] { return number }
    let number: Int32
    if let free = freeListNumbers.popLast() {
      number = free
      lists[Int(number)] = key
      onCounts[Int(number)] = 0
      holeCounts[Int(number)] = 0
    } else {
      number = Int32(lists.count)
      lists.append(key)
      onCounts.append(0)
      holeCounts.append(0)
    }
    listNumbers[key] = number
    return number
  }

  /// Gives every list no more room than its requests take. Chunks grow by doubling while
  /// requests are added with nothing published in between (a load); after that, call this once.
  public mutating func trim() {
    current.trim()
    places.chunks?.empty()
  }

  /// Removes every request whose slot has ended by `nowUnixMs` and returns their ids, ascending.
  /// Looks only at the buckets of UTC days up to the one holding `nowUnixMs`.
  @discardableResult
  public mutating func removeExpired(nowUnixMs: Int64) -> [Int64] {
    let expired = current.ended(by: nowUnixMs).sorted()
    for id in expired { remove(id) }
    return expired
  }

  /// A page of the requests that fit `query` (see `MatchRules.candidate`), leaving out players
  /// in `excluded` and those for whom `isBusy(playerID, overlap)` holds: up to `limit`
  /// candidates that come after `cursor` in the result order.
  ///
  /// `isBusy` is asked only about candidates every other rule lets through, in result order, and
  /// no further than the page needs.
  public func search(
    for query: MatchRequest, excluding excluded: Set<Int64> = [],
    isBusy: (Int64, TimeSlot) -> Bool = { _, _ in false }, limit: Int,
    after cursor: MatchCursor? = nil
  ) -> MatchPage {
    current.search(
      for: query, excluding: excluded, isBusy: isBusy, limit: limit, after: cursor)
  }

  /// How many requests fit `query`, with the same exclusions as `search`, without building pages.
  public func count(
    for query: MatchRequest, excluding excluded: Set<Int64> = [],
    isBusy: (Int64, TimeSlot) -> Bool = { _, _ in false }
  ) -> Int {
    current.count(for: query, excluding: excluded, isBusy: isBusy)
  }

  /// How many requests each relaxation of `query` would find (see `MatchRelaxation`), with the
  /// same exclusions as `search`.
  public func relaxations(
    for query: MatchRequest, excluding excluded: Set<Int64> = [],
    isBusy: (Int64, TimeSlot) -> Bool = { _, _ in false }
  ) -> [MatchRelaxation] {
    current.relaxations(for: query, excluding: excluded, isBusy: isBusy)
  }

}

extension MatchIndex {
  /// The requests of a `MatchIndex` at one moment, searched as the index is: a value that no
  /// later change to the index alters, cheap to copy and to keep.
  public struct Snapshot: Sendable {
    fileprivate let grid: GeoGrid
    fileprivate var buckets: [BucketKey: Cells] = [:]
    /// The version the snapshot shows (see `Stamp`): the writer's own for the index's version
    /// and for a plain index's snapshots.
    fileprivate var version = Stamp.writer
    /// Held by every copy of the snapshot, so that the index knows the version may be read.
    fileprivate var pin: Versions.Pin?
    /// The writer's version only: whether a change since the index's shape was last taken
    /// copied, made or dropped anything (see `MatchIndex.isReshaped`).
    fileprivate var reshaped = true

    fileprivate init(grid: GeoGrid) {
      self.grid = grid
    }

    /// The same shape, showing what the index held at `moment`: for a shape taken from an
    /// index over the places `moment` is of (`MatchIndex.takeShape()`) before `moment`, of an
    /// index that has not been reshaped since (see `MatchIndex.isReshaped`).
    public func at(_ moment: Moment) -> Snapshot {
      var snapshot = self
      snapshot.version = moment.pin.version
      snapshot.pin = moment.pin
      return snapshot
    }

    /// Requests in the snapshot (counted over its lists: a walk of every stamp).
    public var count: Int {
      var count = 0
      forEachShown { _, _, _ in count += 1 }
      return count
    }

    /// Calls `body` with every request the snapshot shows: its slots, in its lists, whose stamps
    /// show at its version, with its bucket's mode.
    private func forEachShown(_ body: (Slots, Int, MatchMode) -> Void) {
      for (key, cells) in buckets {
        for (_, cell) in cells.all {
          for segment in cell.lists.lazy.flatMap(\.segments) {
            for chunk in segment {
              chunk.withSlots { slots in
                for offset in 0..<slots.count where Stamp.shows(slots.stamp(offset), at: version) {
                  body(slots, offset, key.mode)
                }
              }
            }
          }
        }
      }
    }

    /// The chunk holding `position` of list `key`, or nil when the list has no such position.
    fileprivate func chunk(in key: ListKey, at position: Int) -> Chunk? {
      guard let cell = buckets[key.bucket]?[key.cell], cell.isSplit == (key.level != 0),
        position >= 0
      else { return nil }
      return cell[key.level].chunk(holding: position)
    }

    /// The filing and entry at `position` of list `key`.
    fileprivate func read(_ key: ListKey, at position: Int) -> (filing: Filing, entry: Entry) {
      let chunk = buckets[key.bucket]![key.cell]![key.level].chunk(at: position)
      return chunk.request(at: position % List.chunkSize)
    }

    fileprivate func request(in key: ListKey, at position: Int) -> MatchRequest {
      let (filing, entry) = read(key, at: position)
      return Self.request(filing, entry, key.bucket.mode)
    }

    /// The list level a request of `level` goes in, in `cell` of `bucket`.
    fileprivate func listLevel(of level: Int8, in bucket: BucketKey, _ cell: Int) -> Int8 {
      buckets[bucket]?[cell]?.listLevel(level) ?? 0
    }

    fileprivate mutating func replace(
      in key: ListKey, at position: Int, _ filing: Filing, _ entry: Entry, pool: ChunkPool?
    ) {
      reshaped = true
      modify(&buckets[key.bucket]![key.cell]!) { cell in
        cell[key.level].replace(at: position, filing, entry, pool: pool)
      }
    }

    /// Puts the requests of the cell's one list in a list per level, in new chunks (the old ones
    /// stay as the versions that hold them have them): each request's id, level and new
    /// position.
    fileprivate mutating func split(_ bucket: BucketKey, _ cell: Int, pool: ChunkPool?)
      -> [(Int64, Int8, Int)]
    {
      reshaped = true
      return modify(&buckets[bucket]![cell]!) { cell in
        let whole = cell.lists[0]
        var levels = [[(Filing, Entry)]](repeating: [], count: PlayerRules.allLevels.count)
        for (filing, entry) in whole.requests {
          levels[Int(filing.level) - 1].append((filing, entry))
        }
        var moved: [(Int64, Int8, Int)] = []
        for (index, requests) in levels.enumerated() {
          for (position, request) in requests.enumerated() {
            moved.append((request.1.id, Int8(index + 1), position))
          }
        }
        cell.lists = levels.map { List.packed($0, pool: pool) }
        whole.retireChunks(to: pool)
        return moved
      }
    }

    /// Adds a request at the end of the list it goes in, in `cell` of `bucket`, when the last
    /// chunk there has room, whoever shares the chunk: the list and the request's position; nil
    /// when the list has no chunk with room (nothing changed).
    fileprivate mutating func appendInPlace(
      _ filing: Filing, _ entry: Entry, bucket: BucketKey, cell: Int, stamp: UInt64
    ) -> (key: ListKey, position: Int)? {
      guard let found = buckets[bucket]?[cell] else { return nil }
      let level = found.listLevel(filing.level)
      let list = found[level]
      guard let last = list.last, last.count < last.room else { return nil }
      let position = list.count
      last.append(filing, entry, stamp: stamp)
      return (ListKey(bucket: bucket, cell: cell, level: level), position)
    }

    /// Adds a request at the end of list `key`, stamped `stamp`, in a chunk made the writer's
    /// own first; returns its position.
    fileprivate mutating func append(
      _ filing: Filing, _ entry: Entry, to key: ListKey, stamp: UInt64, pool: ChunkPool?
    ) -> Int {
      reshaped = true
      return modify(&buckets[key.bucket, default: Cells()][key.cell, default: Cell()]) { cell in
        cell[key.level].append(filing, entry, stamp: stamp, pool: pool)
      }
    }

    private func modify<Result>(_ cell: inout Cell, _ body: (inout Cell) -> Result) -> Result {
      body(&cell)
    }

    /// Stamps the request at `position` of list `key` taken off with `stamp`. With
    /// `oldestRead` (the oldest version a snapshot may still read), in place when every such
    /// snapshot shows the request on; else in a chunk of the writer's own.
    fileprivate mutating func takeOff(
      _ key: ListKey, at position: Int, in known: Chunk?, stamp: UInt64, oldestRead: UInt64?,
      pool: ChunkPool?
    ) {
      let offset = position % List.chunkSize
      if let oldestRead {
        let chunk = known ?? buckets[key.bucket]![key.cell]![key.level].chunk(at: position)
        // On since a version every snapshot that may be read shows: each goes on showing it.
        if chunk.stamp(at: offset) <= oldestRead {
          chunk.setStamp(stamp, at: offset)
          return
        }
      }
      reshaped = true
      modify(&buckets[key.bucket]![key.cell]!) { cell in
        cell[key.level].stampOff(at: position, stamp: stamp, pool: pool)
      }
    }

    /// Drops list `key`, which holds holes only, and its cell when that holds no other list.
    fileprivate mutating func drop(_ key: ListKey, pool: ChunkPool?) {
      reshaped = true
      let emptied = modify(&buckets[key.bucket]![key.cell]!) { cell in
        cell[key.level].retireChunks(to: pool)
        cell[key.level] = List()
        return cell.isEmpty
      }
      guard emptied else { return }
      buckets[key.bucket]![key.cell] = nil
      if buckets[key.bucket]!.isEmpty { buckets[key.bucket] = nil }
    }

    /// Packs list `key` into new chunks with no holes (the old ones stay as the versions that
    /// hold them have them): the ids of its requests, by their new positions.
    fileprivate mutating func pack(_ key: ListKey, pool: ChunkPool?) -> [Int64] {
      reshaped = true
      return modify(&buckets[key.bucket]![key.cell]!) { cell in
        let old = cell[key.level]
        let requests = old.requests
        cell[key.level] = List.packed(requests, pool: pool)
        old.retireChunks(to: pool)
        return requests.map(\.1.id)
      }
    }

    fileprivate mutating func trim() {
      reshaped = true
      // Looked at before any is changed, so that a snapshot a version shares is copied only
      // where a list has room to give back.
      var spare: [(BucketKey, Int, Int)] = []
      for (bucket, cells) in buckets {
        for (number, cell) in cells.all {
          for level in cell.lists.indices where cell.lists[level].hasSpareRoom {
            spare.append((bucket, number, level))
          }
        }
      }
      for (bucket, cell, level) in spare { buckets[bucket]![cell]!.lists[level].trim() }
    }

    /// The ids of the requests whose slots have ended by `nowUnixMs`. (The writer's version
    /// only.)
    fileprivate func ended(by nowUnixMs: Int64) -> [Int64] {
      // A slot that has ended by now started on the day of the millisecond before now, or
      // earlier.
      let lastDay = MatchIndex.day(of: nowUnixMs - 1)
      var found: [Int64] = []
      for (key, cells) in buckets where key.day <= lastDay {
        for (_, cell) in cells.all {
          for segment in cell.lists.lazy.flatMap(\.segments) {
            for chunk in segment {
              chunk.withSlots { slots in
                for offset in 0..<slots.count
                where slots.isOn(offset) && slots.entries[offset].endUnixMs <= nowUnixMs {
                  found.append(slots.entries[offset].id)
                }
              }
            }
          }
        }
      }
      return found
    }

    /// Every request in the snapshot, with its player's level then, in no particular order.
    public var requests: [MatchRequest] {
      var result: [MatchRequest] = []
      forEachShown { slots, offset, mode in
        result.append(Self.request(slots.filings[offset], slots.entries[offset], mode))
      }
      return result
    }

    fileprivate static func request(_ filing: Filing, _ entry: Entry, _ mode: MatchMode)
      -> MatchRequest
    {
      MatchRequest(
        id: entry.id, playerID: entry.playerID, mode: mode,
        slot: TimeSlot(startUnixMs: entry.startUnixMs, endUnixMs: entry.endUnixMs),
        location: Coordinate(latitude: entry.latitude, longitude: entry.longitude),
        radiusMiles: entry.radiusMiles, skillTolerance: Int(filing.skillTolerance),
        displayLevel: Int(filing.level), postedAtUnixMs: entry.postedAtUnixMs)
    }

    /// A page of the requests that fit `query` (see `MatchRules.candidate`), leaving out players
    /// in `excluded` and those for whom `isBusy(playerID, overlap)` holds: up to `limit`
    /// candidates that come after `cursor` in the result order.
    ///
    /// `isBusy` is asked only about candidates every other rule lets through, in result order, and
    /// no further than the page needs.
    public func search(
      for query: MatchRequest, excluding excluded: Set<Int64> = [],
      isBusy: (Int64, TimeSlot) -> Bool = { _, _ in false }, limit: Int,
      after cursor: MatchCursor? = nil
    ) -> MatchPage {
      precondition(limit > 0, "limit must be positive")
      // Keep only the first page and one more in a bounded heap while visiting; that is enough
      // unless booked players push the page past them.
      let keep = limit + 1
      var best = Heap<Ranked>()
      var total = 0
      // Results go by skill difference first, then shown distance. Once the heap is full, a
      // request further off in level than its last, or as far off and further away, cannot get
      // in and is not worked out (it is only noted as a fit that may follow). A level nearer
      // than the cursor's holds nothing after it and is not read either.
      let farthest = { (skillDifference: Int) -> Double in
        guard best.count == keep, let last = best.max?.candidate,
          skillDifference >= last.skillDifference
        else { return .infinity }
        return skillDifference == last.skillDifference ? last.distanceMiles : -1
      }
      let passedOver = visitCandidates(
        for: query, excluding: excluded, nearest: cursor?.skillDifference ?? 0,
        farthest: farthest
      ) { candidate in
        if let cursor, !(cursor < candidate.cursor) { return }
        total += 1
        if best.count < keep {
          best.insert(Ranked(candidate))
        } else if candidate.cursor < best.max!.candidate.cursor {
          _ = best.replaceMax(with: Ranked(candidate))
        }
      }
      let first = best.unordered.sorted().map(\.candidate)
      var page: [MatchCandidate] = []
      for candidate in first where !isBusy(candidate.playerID, candidate.overlap) {
        if page.count == limit { return MatchPage(candidates: page, nextCursor: page.last!.cursor) }
        page.append(candidate)
      }
      guard total > first.count || passedOver else {
        return MatchPage(candidates: page, nextCursor: nil)
      }
      // Booked players took places on the page: go on in result order past the ones kept.
      var rest = candidates(for: query, excluding: excluded, after: first.last!.cursor)
      rest.sort(by: MatchCandidate.precedes)
      for candidate in rest where !isBusy(candidate.playerID, candidate.overlap) {
        if page.count == limit { return MatchPage(candidates: page, nextCursor: page.last!.cursor) }
        page.append(candidate)
      }
      return MatchPage(candidates: page, nextCursor: nil)
    }

    /// A candidate in a heap, ordered by the result order.
    private struct Ranked: Comparable {
      var candidate: MatchCandidate
      init(_ candidate: MatchCandidate) { self.candidate = candidate }
      static func < (a: Ranked, b: Ranked) -> Bool { a.candidate.cursor < b.candidate.cursor }
      static func == (a: Ranked, b: Ranked) -> Bool { a.candidate.cursor == b.candidate.cursor }
    }

    /// How many requests fit `query`, with the same exclusions as `search`, without building pages.
    public func count(
      for query: MatchRequest, excluding excluded: Set<Int64> = [],
      isBusy: (Int64, TimeSlot) -> Bool = { _, _ in false }
    ) -> Int {
      var count = 0
      visitCandidates(for: query, excluding: excluded) { candidate in
        if !isBusy(candidate.playerID, candidate.overlap) { count += 1 }
      }
      return count
    }

    /// How many requests each relaxation of `query` would find (see `MatchRelaxation`), with the
    /// same exclusions as `search`.
    public func relaxations(
      for query: MatchRequest, excluding excluded: Set<Int64> = [],
      isBusy: (Int64, TimeSlot) -> Bool = { _, _ in false }
    ) -> [MatchRelaxation] {
      MatchRelaxation.options(for: query).map { kind, relaxed in
        MatchRelaxation(
          kind: kind, slot: relaxed.slot, skillTolerance: relaxed.skillTolerance,
          radiusMiles: relaxed.radiusMiles,
          candidateCount: count(for: relaxed, excluding: excluded, isBusy: isBusy))
      }
    }

    private func candidates(
      for query: MatchRequest, excluding excluded: Set<Int64>, after cursor: MatchCursor?
    ) -> [MatchCandidate] {
      var result: [MatchCandidate] = []
      visitCandidates(for: query, excluding: excluded, nearest: cursor?.skillDifference ?? 0) {
        candidate in
        if let cursor, !(cursor < candidate.cursor) { return }
        result.append(candidate)
      }
      return result
    }

    /// Calls `body` once for each request that fits `query` and whose player is not excluded.
    ///
    /// The levels are visited nearest the query's first, from a skill difference of `nearest`
    /// on, and within a level the cells nearest the query's location first. `farthest(d)` is
    /// the farthest shown distance a request `d` levels off may be at and still be wanted
    /// (negative for none): a request that must be further is passed over without being worked
    /// out, and so is a list, or a level, all of whose requests must be. Returns whether any
    /// request that may fit was passed over.
    @discardableResult
    private func visitCandidates(
      for query: MatchRequest, excluding excluded: Set<Int64>, nearest: Int = 0,
      farthest: (Int) -> Double = { _ in .infinity }, _ body: (MatchCandidate) -> Void
    ) -> Bool {
      guard query.radiusMiles >= 0, query.slot.startUnixMs < query.slot.endUnixMs else {
        return false
      }
      let radius = MatchIndex.reachMiles(of: query)
      let days =
        MatchIndex.day(
          of: query.slot.startUnixMs)...MatchIndex.day(
          of: query.slot.endUnixMs - 1)
      // Slots that run into the next day may have started the day before the query's first.
      let spilling = (days.lowerBound - 1)...days.upperBound
      let cells = grid.cells(around: query.location, radiusMiles: radius)
      // A slot longer than the snapshot's span of days need not visit the days in between.
      let keys =
        days.upperBound - days.lowerBound < Int64(buckets.count)
        ? days.map { BucketKey(day: $0, mode: query.mode, spills: false) }
          + spilling.map { BucketKey(day: $0, mode: query.mode, spills: true) }
        : buckets.keys.filter {
          $0.mode == query.mode && ($0.spills ? spilling : days).contains($0.day)
        }
      // Cheap tests first, each one a consequence of the rules, so that only requests that can
      // fit get the full test of `MatchRules.candidate`: a slot that overlaps the query's by the
      // minimum, levels the tolerances allow, and a latitude no further than the radius allows
      // (a great circle is at least as long as the difference in latitude).
      let queryStartMinute = MatchIndex.floorDivide(query.slot.startUnixMs, 60_000)
      let queryEndMinute = -MatchIndex.floorDivide(-query.slot.endUnixMs, 60_000)
      let minimumOverlapMinutes = TimeSlot.minimumOverlapMs / 60_000
      // Single-precision latitudes are within a millionth of a degree or so; allow a thousandth.
      let latitudeReach = radius / Geo.earthRadiusMiles * 180 / .pi + 1e-3
      let queryShown = LocationPrivacy.shownPosition(of: query.location)
      let queryLevel = query.displayLevel
      let queryTolerance = query.skillTolerance
      // The query's cells of each bucket, found once for all levels, nearest first. A fit in a
      // cell lies at least the cell's distance from the query's location, and is shown at most
      // twice the snap nearer (each position snaps to its privacy cell's centre, and bands only
      // round up).
      let reach = grid.reach(around: query.location, radiusMiles: radius)
      var found: [(mode: MatchMode, cell: Cell, nearestMiles: Double)] = []
      for key in keys {
        guard let bucket = buckets[key] else { continue }
        for number in cells {
          guard let cell = bucket[number] else { continue }
          let miles = max(
            reach.latitudeBoundMiles(row: number / grid.columns),
            reach.longitudeBound(column: number % grid.columns).miles)
          found.append(
            (key.mode, cell, max(miles - 2 * LocationPrivacy.maximumSnapMiles - 1e-6, 0)))
        }
      }
      guard !found.isEmpty else { return false }
      found.sort { $0.nearestMiles < $1.nearestMiles }
      // The difference in latitude a request shown no further than `miles` can have: its true
      // position is at most twice the snap further, and at least its difference in latitude.
      let latitudeWithin = { (miles: Double) -> Double in
        min(
          latitudeReach,
          (miles + 2 * LocationPrivacy.maximumSnapMiles) / Geo.earthRadiusMiles * 180 / .pi
            + 1e-3)
      }
      let levels = PlayerRules.allLevels
      var passedOver = false
      // A cursor from a page token may say anything; no level is visited twice.
      let nearest = max(nearest, 0)
      guard nearest <= queryTolerance else { return false }
      // The full test, for a request the quick ones let through.
      func consider(_ filing: Filing, _ entry: Entry, _ mode: MatchMode) {
        guard entry.playerID != query.playerID,
          excluded.isEmpty || !excluded.contains(entry.playerID),
          let candidate = MatchRules.candidate(
            Self.request(filing, entry, mode),
            shownAt: entry.shownPosition,
            for: query, shownAt: queryShown)
        else { return }
        body(candidate)
      }
      // The cells not split: every level in one list, each request tested for its own.
      for (mode, cell, nearestMiles) in found where !cell.isSplit {
        guard nearestMiles <= farthest(nearest) else {
          passedOver = true
          continue
        }
        for segment in cell.lists[0].segments {
          for chunk in segment {
            chunk.withSlots { slots in
              for offset in 0..<slots.count {
                let filing = slots.filings[offset]
                let difference = abs(Int(filing.level) - queryLevel)
                let latitudeDifference = abs(Double(filing.latitude) - query.location.latitude)
                // The stamp last: a hole, or a request of another version, is rare.
                guard
                  filing.mayOverlap(
                    queryStartMinute, queryEndMinute, minimum: minimumOverlapMinutes),
                  difference >= nearest,
                  difference <= min(queryTolerance, Int(filing.skillTolerance)),
                  latitudeDifference <= latitudeReach,
                  Stamp.shows(slots.stamp(offset), at: version)
                else { continue }
                let farthest = farthest(difference)
                guard nearestMiles <= farthest, latitudeDifference <= latitudeWithin(farthest)
                else {
                  passedOver = true
                  continue
                }
                consider(filing, slots.entries[offset], mode)
              }
            }
          }
        }
      }
      // The split cells, a level at a time, nearest first.
      for difference in nearest...queryTolerance {
        guard farthest(difference) >= 0 else { return true }
        for level in difference == 0
          ? [queryLevel] : [queryLevel - difference, queryLevel + difference]
        where levels.contains(level) {
          for (mode, cell, nearestMiles) in found where cell.isSplit {
            let list = cell[Int8(level)]
            guard list.count > 0 else { continue }
            var latitudeLimit = latitudeWithin(farthest(difference))
            guard nearestMiles <= farthest(difference) else {
              passedOver = true
              break
            }
            for segment in list.segments {
              for chunk in segment {
                chunk.withSlots { slots in
                  for offset in 0..<slots.count {
                    let filing = slots.filings[offset]
                    let latitudeDifference = abs(
                      Double(filing.latitude) - query.location.latitude)
                    guard
                      filing.mayOverlap(
                        queryStartMinute, queryEndMinute, minimum: minimumOverlapMinutes),
                      difference <= Int(filing.skillTolerance),
                      latitudeDifference <= latitudeReach,
                      Stamp.shows(slots.stamp(offset), at: version)
                    else { continue }
                    guard latitudeDifference <= latitudeLimit else {
                      passedOver = true
                      continue
                    }
                    consider(filing, slots.entries[offset], mode)
                    latitudeLimit = latitudeWithin(farthest(difference))
                  }
                }
              }
            }
          }
        }
      }
      return passedOver
    }
  }
}

extension MatchIndex {
  /// How far from the query's location the true locations of fitting requests can lie: a
  /// request fits by the distance between cell centres, each at most
  /// `LocationPrivacy.maximumSnapMiles` from its true location.
  static func reachMiles(of query: MatchRequest) -> Double {
    LocationPrivacy.banded(min(query.radiusMiles, Geo.maximumRadiusMiles))
      + 2 * LocationPrivacy.maximumSnapMiles
  }

  /// The UTC day, counted from 1970-01-01, holding the instant `unixMs`.
  fileprivate static func day(of unixMs: Int64) -> Int64 { floorDivide(unixMs, dayMs) }

  /// `a / b` rounded down, for a positive `b`.
  fileprivate static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    a >= 0 ? a / b : (a + 1) / b - 1
  }

}
