/// A table from ids to values, for ids the store hands out in order (from 1 up, with the gaps
/// that removals leave): a value takes its own size and no key, where a hash table takes the
/// key, the value and the room it keeps free.
///
/// Ids from 0 below `pagedIDs` are kept in pages of 1,024 consecutive ids, each made when its
/// first id arrives and freed when its last one leaves; any other id (negative, or past the
/// pages) is kept in a hash table beside them, so every id works, and only the store's ids
/// are cheap.
///
/// A reference: a table is changed in place by whoever holds it, and several holders see one
/// table. It is not safe to use from two threads at once; its holders take care that only one
/// does.
public final class IDTable<Value>: @unchecked Sendable {
  /// Ids a page holds (a power of two).
  static var pageSize: Int { 1 << pageShift }
  private static var pageShift: Int { 10 }
  /// Ids from 0 below this are paged: their pages' directory takes at most 2 MB.
  static var pagedIDs: Int64 { 1 << 28 }

  /// One page: 1,024 values, a bit for each saying whether it is there.
  private final class Page {
    var count = 0
    var present = [UInt64](repeating: 0, count: IDTable.pageSize / 64)
    let values = UnsafeMutablePointer<Value>.allocate(capacity: IDTable.pageSize)

    deinit {
      for word in present.indices where present[word] != 0 {
        for bit in 0..<64 where present[word] & (1 << bit) != 0 {
          (values + word * 64 + bit).deinitialize(count: 1)
        }
      }
      values.deallocate()
    }
  }

  /// The pages, by id / 1,024; nil where no id of the page is in the table.
  private var pages: [Page?] = []
  /// The ids that are not paged.
  private var others: [Int64: Value] = [:]

  /// The number of ids in the table.
  public private(set) var count = 0

  /// An empty table.
  public init() {}

  /// A table holding what `other` holds now, changed apart from it from now on.
  public convenience init(copying other: IDTable) {
    self.init()
    others = other.others
    count = other.count
    pages = other.pages.map { page in
      page.map { page in
        let copy = Page()
        copy.count = page.count
        copy.present = page.present
        for word in page.present.indices where page.present[word] != 0 {
          for bit in 0..<64 where page.present[word] & (1 << bit) != 0 {
            let slot = word * 64 + bit
            (copy.values + slot).initialize(to: page.values[slot])
          }
        }
        return copy
      }
    }
  }

  /// The value of `id`, or nil; setting nil removes the id.
  public subscript(id: Int64) -> Value? {
    get {
      guard let (page, slot) = locate(id) else { return others[id] }
      guard Int(page) < pages.count, let held = pages[Int(page)],
        held.present[slot >> 6] & (1 << (slot & 63)) != 0
      else { return nil }
      return held.values[slot]
    }
    set {
      guard let (page, slot) = locate(id) else {
        let had = others[id] != nil
        others[id] = newValue
        count += (newValue != nil ? 1 : 0) - (had ? 1 : 0)
        return
      }
      let index = Int(page)
      if let newValue {
        if index >= pages.count {
          pages.append(contentsOf: repeatElement(nil, count: index + 1 - pages.count))
        }
        let held: Page
        if let existing = pages[index] {
          held = existing
        } else {
          held = Page()
          pages[index] = held
        }
        let bit: UInt64 = 1 << (slot & 63)
        if held.present[slot >> 6] & bit == 0 {
          held.present[slot >> 6] |= bit
          held.count += 1
          count += 1
          (held.values + slot).initialize(to: newValue)
        } else {
          held.values[slot] = newValue
        }
      } else {
        guard index < pages.count, let held = pages[index] else { return }
        let bit: UInt64 = 1 << (slot & 63)
        guard held.present[slot >> 6] & bit != 0 else { return }
        held.present[slot >> 6] &= ~bit
        (held.values + slot).deinitialize(count: 1)
        held.count -= 1
        count -= 1
        if held.count == 0 {
          pages[index] = nil
          // The directory shrinks with its last pages, so it stays as long as the ids in use.
          while let last = pages.last, last == nil { pages.removeLast() }
        }
      }
    }
  }

  /// Every id in the table with its value.
  public var all: [Int64: Value] {
    var result = others
    result.reserveCapacity(count)
    for (index, page) in pages.enumerated() {
      guard let page else { continue }
      for word in page.present.indices where page.present[word] != 0 {
        for bit in 0..<64 where page.present[word] & (1 << bit) != 0 {
          let slot = word * 64 + bit
          result[Int64(index) << Int64(Self.pageShift) + Int64(slot)] = page.values[slot]
        }
      }
    }
    return result
  }

  /// Changes the value of `id`, which must be in the table.
  public func update(_ id: Int64, _ change: (inout Value) -> Void) {
    var value = self[id]!
    change(&value)
    self[id] = value
  }

  /// The page and slot of a paged id; nil for the others.
  private func locate(_ id: Int64) -> (page: Int64, slot: Int)? {
    guard id >= 0, id < Self.pagedIDs else { return nil }
    return (id >> Int64(Self.pageShift), Int(id & Int64(Self.pageSize - 1)))
  }
}
