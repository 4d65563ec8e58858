/// A table from ids to values, for ids the store hands out in order (from 1 up, with the gaps
/// that removals leave): a value takes its own size and no key, where a hash table takes the
/// key, the value and the room it keeps free.
///
/// Ids are kept in pages of 1,024 consecutive ids, each made when its first id arrives and
/// freed when its last one leaves. The pages' directory covers a window of at most 2^28 ids
/// (2 MB of directory) that moves with the ids in use: as the oldest ids leave, their pages go
/// and the window starts later, so ids that only grow (availability posted and expired for
/// years) stay paged. An id the window cannot take (negative, or 2^28 or more away from the
/// ids held) is kept in a hash table beside the pages, so every id works, and the store's ids
/// are cheap.
///
/// A reference: a table is changed in place by whoever holds it, and several holders see one
/// table. It is not safe to use from two threads at once; its holders take care that only one
/// does.
public final class IDTable<Value>: @unchecked Sendable {
  /// Ids a page holds (a power of two).
  static var pageSize: Int { Page.capacity }
  private static var pageShift: Int { Page.shift }
  /// The most pages the directory covers: a window of 2^28 ids.
  static var windowPages: Int { 1 << 18 }

  /// One page's values.
  private typealias Page = IDTablePage

  /// The pages of the window, from page number `base` (an id's page number is id / 1,024); nil
  /// where no id of the page is in the table. Never starts or ends with nil.
  private var pages: [Page?] = []
  private var base: Int64 = 0
  /// The ids that are not paged.
  private var others: [Int64: Value] = [:]

  /// The number of ids in the table.
  public private(set) var count = 0

  /// Pages held, and the directory's length (for tests of their freeing).
  var pagesHeld: Int { pages.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }
  var directoryLength: Int { pages.count }
  /// Ids kept beside the pages.
  var unpaged: Int { others.count }

  /// An empty table.
  public init() {}

  deinit {
    for page in pages {
      guard let page else { continue }
      for slot in page.slotsHeld { (page.values(Value.self) + slot).deinitialize(count: 1) }
    }
  }

  /// A table holding what `other` holds now, changed apart from it from now on.
  public convenience init(copying other: IDTable) {
    self.init()
    others = other.others
    count = other.count
    base = other.base
    pages = other.pages.map { page in
      page.map { page in
        let copy = Page(Value.self)
        copy.count = page.count
        copy.present.update(from: page.present, count: Page.words)
        for slot in page.slotsHeld {
          (copy.values(Value.self) + slot).initialize(to: page.values(Value.self)[slot])
        }
        return copy
      }
    }
  }

  /// The value of `id`, or nil; setting nil removes the id.
  public subscript(id: Int64) -> Value? {
    get {
      if let (page, slot) = held(id), page.present[slot >> 6] & (1 << (slot & 63)) != 0 {
        return page.values(Value.self)[slot]
      }
      return others.isEmpty ? nil : others[id]
    }
    set {
      if let newValue { set(id, newValue) } else { remove(id) }
    }
  }

  /// Changes the value of `id`, which must be in the table.
  public func update(_ id: Int64, _ change: (inout Value) -> Void) {
    var value = self[id]!
    change(&value)
    self[id] = value
  }

  /// Every id in the table with its value.
  public var all: [Int64: Value] {
    var result = others
    result.reserveCapacity(count)
    for (index, page) in pages.enumerated() {
      guard let page else { continue }
      let first = (base + Int64(index)) << Int64(Self.pageShift)
      for word in 0..<Page.words where page.present[word] != 0 {
        for bit in 0..<64 where page.present[word] & (1 << bit) != 0 {
          let slot = word * 64 + bit
          result[first + Int64(slot)] = page.values(Value.self)[slot]
        }
      }
    }
    return result
  }

  private func set(_ id: Int64, _ value: Value) {
    guard let (index, slot) = windowIndex(id) else {
      if others.updateValue(value, forKey: id) == nil { count += 1 }
      return
    }
    let page: Page
    if let existing = pages[index] {
      page = existing
    } else {
      page = Page(Value.self)
      pages[index] = page
    }
    let bit: UInt64 = 1 << (slot & 63)
    if page.present[slot >> 6] & bit == 0 {
      page.present[slot >> 6] |= bit
      page.count += 1
      (page.values(Value.self) + slot).initialize(to: value)
      // Kept beside the pages while the window could not take it: it is paged from now on.
      if others.isEmpty || others.removeValue(forKey: id) == nil { count += 1 }
    } else {
      page.values(Value.self)[slot] = value
    }
  }

  private func remove(_ id: Int64) {
    guard let (page, slot) = held(id), page.present[slot >> 6] & (1 << (slot & 63)) != 0
    else {
      if !others.isEmpty, others.removeValue(forKey: id) != nil { count -= 1 }
      return
    }
    page.present[slot >> 6] &= ~(1 << (slot & 63))
    (page.values(Value.self) + slot).deinitialize(count: 1)
    page.count -= 1
    count -= 1
    guard page.count == 0 else { return }
    pages[Int((id >> Int64(Self.pageShift)) - base)] = nil
    // The directory keeps no empty page at either end, so it spans only the ids in use.
    while let last = pages.last, last == nil { pages.removeLast() }
    let leading = pages.prefix { $0 == nil }.count
    if leading > 0 {
      pages.removeFirst(leading)
      base += Int64(leading)
    }
  }

  /// The page holding `id`'s slot, when there is one.
  private func held(_ id: Int64) -> (page: Page, slot: Int)? {
    guard id >= 0 else { return nil }
    let number = id >> Int64(Self.pageShift)
    guard number >= base, number - base < Int64(pages.count),
      let page = pages[Int(number - base)]
    else { return nil }
    return (page, Int(id & Int64(Self.pageSize - 1)))
  }

  /// The directory index and slot of `id`, the window moved or widened to take it; nil when
  /// it would span more than `windowPages`, or `id` is negative.
  private func windowIndex(_ id: Int64) -> (index: Int, slot: Int)? {
    guard id >= 0 else { return nil }
    let number = id >> Int64(Self.pageShift)
    let slot = Int(id & Int64(Self.pageSize - 1))
    if pages.isEmpty {
      base = number
      pages = [nil]
      return (0, slot)
    }
    if number < base {
      let added = base - number
      guard added + Int64(pages.count) <= Int64(Self.windowPages) else { return nil }
      pages.insert(contentsOf: repeatElement(nil, count: Int(added)), at: 0)
      base = number
      return (0, slot)
    }
    let index = number - base
    guard index < Int64(Self.windowPages) else { return nil }
    if index >= Int64(pages.count) {
      pages.append(contentsOf: repeatElement(nil, count: Int(index) + 1 - pages.count))
    }
    return (Int(index), slot)
  }
}

/// One page of an `IDTable`: room for 1,024 values, a bit for each saying whether it is there,
/// the bits and the values in one allocation (a look-up reads the bit and then the value, with
/// no other object between them).
///
/// Not generic: the table's code is not specialized in the modules that use it (the player
/// book, the match board's levels), and there the runtime was asked for the metadata of a
/// generic page's directory at every look-up. The table puts its values in and takes them out;
/// a page is freed holding none.
private final class IDTablePage {
  /// The values a page has room for: 1 << `shift`.
  static let shift = 10
  static let capacity = 1 << shift

  /// Words of `present`.
  static let words = capacity / 64

  var count = 0
  /// A bit for each slot, set where it holds a value; the values follow the bits.
  let present: UnsafeMutablePointer<UInt64>
  private let storage: UnsafeMutableRawPointer

  init<Value>(_ type: Value.Type) {
    let alignment = max(MemoryLayout<Value>.alignment, MemoryLayout<UInt64>.alignment)
    // The values start at the first multiple of their alignment after the bits.
    let bits = Self.words * MemoryLayout<UInt64>.stride
    let offset = (bits + alignment - 1) / alignment * alignment
    let raw = UnsafeMutableRawPointer.allocate(
      byteCount: offset + MemoryLayout<Value>.stride * Self.capacity, alignment: alignment)
    present = raw.bindMemory(to: UInt64.self, capacity: Self.words)
    present.initialize(repeating: 0, count: Self.words)
    storage = raw + offset
    // Bound once to the table's type, which `values` then assumes.
    storage.bindMemory(to: Value.self, capacity: Self.capacity)
  }

  deinit { UnsafeMutableRawPointer(present).deallocate() }

  /// The values' room, as the table's type.
  func values<Value>(_ type: Value.Type) -> UnsafeMutablePointer<Value> {
    storage.assumingMemoryBound(to: Value.self)
  }

  /// The slots that hold a value.
  var slotsHeld: [Int] {
    var slots: [Int] = []
    slots.reserveCapacity(count)
    for word in 0..<Self.words where present[word] != 0 {
      for bit in 0..<64 where present[word] & (1 << bit) != 0 { slots.append(word * 64 + bit) }
    }
    return slots
  }
}
