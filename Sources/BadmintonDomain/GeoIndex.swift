internal import HeapModule

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// One entry of a nearby search: a player and how far they are.
public struct NearbyHit: Hashable, Comparable, Sendable {
  /// The player.
  public var playerID: Int64
  /// The distance in miles.
  public var distanceMiles: Double

  /// A hit at `distanceMiles`.
  public init(playerID: Int64, distanceMiles: Double) {
    self.playerID = playerID
    self.distanceMiles = distanceMiles
  }

  /// Nearest first; equal distances by player id, so every search has one order.
  public static func precedes(_ a: NearbyHit, _ b: NearbyHit) -> Bool {
    (a.distanceMiles, a.playerID) < (b.distanceMiles, b.playerID)
  }

  /// The order of `precedes`.
  public static func < (a: NearbyHit, b: NearbyHit) -> Bool { precedes(a, b) }
}

/// Players' last known locations in a fine grid of latitude-longitude cells, searched nearest
/// first: a search visits cells in the order of how near any point of theirs can be, and stops
/// once no unvisited cell can hold a player nearer than the page's last one. Each grid row keeps
/// its occupied cells sorted by column, so empty land and sea cost nothing.
///
/// Searches read a `Snapshot`: a value whose parts are shared, never changed in place while
/// shared, so a snapshot keeps answering as the index did when it was taken however the index
/// changes afterwards. A change copies only the small parts on its way down (a few arrays of at
/// most a few dozen entries each, and the ids of at most one chunk of players), whatever the
/// index's size. Players at the same position share one entry: the position is kept once, with
/// the ids of its players in ascending order. Which player is where is the writer's own record,
/// outside the snapshot.
public struct GeoIndex: Sendable {
  /// A cell's edge in degrees.
  public var cellDegrees: Double { grid.cellDegrees }
  private let grid: GeoGrid
  /// What searches read: the players by position.
  public private(set) var snapshot: Snapshot
  /// Each player's position, by its number in `positions`.
  private var places: [Int64: UInt32] = [:]
  /// The positions players are at, by number; a number no player is at is in `freeNumbers`.
  private var positions: [Position] = []
  /// The number of each position players are at.
  private var numbers: [Coordinate: UInt32] = [:]
  private var freeNumbers: [UInt32] = []

  /// A position and how many players are at it.
  private struct Position {
    var coordinate: Coordinate
    var players: Int
  }

  /// An empty index whose cells are `cellDegrees` on a side (default 0.01 degrees, about 0.7
  /// miles north to south).
  public init(cellDegrees: Double = 0.01) {
    self.grid = GeoGrid(cellDegrees: cellDegrees)
    self.snapshot = Snapshot(grid: grid)
  }

  /// Players in the index.
  public var count: Int { places.count }

  /// The last known location of `playerID`.
  public func location(of playerID: Int64) -> Coordinate? {
    places[playerID].map { positions[Int($0)].coordinate }
  }

  /// Every indexed player's location.
  public var allLocations: [Int64: Coordinate] {
    places.mapValues { positions[Int($0)].coordinate }
  }

  /// Records `playerID` at `coordinate`, replacing where they were; whether that changed
  /// anything.
  @discardableResult
  public mutating func update(_ playerID: Int64, to coordinate: Coordinate) -> Bool {
    let number = enter(coordinate)
    if let old = places.updateValue(number, forKey: playerID) {
      guard old != number else {
        positions[Int(number)].players -= 1
        return false
      }
      leave(old, playerID)
    }
    snapshot.insert(playerID, at: coordinate)
    return true
  }

  /// Forgets `playerID`; whether they were there.
  @discardableResult
  public mutating func remove(_ playerID: Int64) -> Bool {
    guard let number = places.removeValue(forKey: playerID) else { return false }
    leave(number, playerID)
    return true
  }

  /// The number of the position `coordinate`, counting one more player at it.
  private mutating func enter(_ coordinate: Coordinate) -> UInt32 {
    if let number = numbers[coordinate] {
      positions[Int(number)].players += 1
      return number
    }
    let number: UInt32
    if let free = freeNumbers.popLast() {
      number = free
      positions[Int(number)] = Position(coordinate: coordinate, players: 1)
    } else {
      precondition(positions.count < Int(UInt32.max), "too many positions")
      number = UInt32(positions.count)
      positions.append(Position(coordinate: coordinate, players: 1))
    }
    numbers[coordinate] = number
    return number
  }

  /// Takes `playerID` away from position `number`, freeing the number when no one is left.
  private mutating func leave(_ number: UInt32, _ playerID: Int64) {
    let coordinate = positions[Int(number)].coordinate
    positions[Int(number)].players -= 1
    if positions[Int(number)].players == 0 {
      numbers[coordinate] = nil
      freeNumbers.append(number)
    }
    snapshot.remove(playerID, at: coordinate)
  }

  /// The first `limit` players within `radiusMiles` of `center` (the boundary included) that
  /// come after `cursor` in nearest-first order (see `NearbyHit.precedes`) and for whom
  /// `excluded` is false, nearest first.
  ///
  /// `shownDistance` turns each distance into the one hits carry, compare with the radius (as
  /// `shownDistance(radiusMiles)`) and are ordered by; it must never be less than its input nor
  /// smaller for a larger input. By default distances are exact.
  public func nearest(
    to center: Coordinate, radiusMiles: Double, after cursor: NearbyHit? = nil, limit: Int,
    shownDistance: (Double) -> Double = { $0 },
    excluding excluded: (Int64) -> Bool = { _ in false }
  ) -> [NearbyHit] {
    snapshot.nearest(
      to: center, radiusMiles: radiusMiles, after: cursor, limit: limit,
      shownDistance: shownDistance, excluding: excluded)
  }
}

extension GeoIndex {
  /// The index as searches read it at one moment: every located player by position, and
  /// nothing else. Changes to the index after the snapshot was taken never reach it.
  ///
  /// The grid's rows are kept 1,024 to a band and 32 to a strip, each level an array sorted by
  /// its key holding only occupied entries; a row keeps its occupied cells 8 columns to a leaf;
  /// a cell keeps its positions, and each position the ids of its players in ascending order,
  /// in chunks of at most 256.
  public struct Snapshot: Sendable {
    fileprivate let grid: GeoGrid
    fileprivate var bands: [Band] = []
    /// Players in the snapshot.
    public private(set) var count = 0

    fileprivate init(grid: GeoGrid) { self.grid = grid }

    /// A cell's edge in degrees.
    public var cellDegrees: Double { grid.cellDegrees }

    /// Adds `playerID` at `coordinate`; the player must not be in the snapshot.
    fileprivate mutating func insert(_ playerID: Int64, at coordinate: Coordinate) {
      let (rowNumber, column) = grid.place(of: coordinate)
      let bandKey = Band.key(of: rowNumber)
      let stripKey = Strip.key(of: rowNumber)
      let leafKey = Leaf.key(of: column)
      bands.modify(bandKey, orMake: Band(key: bandKey, strips: [])) { band in
        band.strips.modify(stripKey, orMake: Strip(key: stripKey, rows: [])) { strip in
          strip.rows.modify(rowNumber, orMake: Row(key: rowNumber, count: 0, leaves: [])) { row in
            let cellAdded = row.leaves.modify(leafKey, orMake: Leaf(key: leafKey, cells: [])) {
              leaf -> Bool in
              let place = leaf.cells.place(of: column)
              if place < leaf.cells.count, leaf.cells[place].key == column {
                leaf.cells[place].insert(playerID, at: coordinate)
                return false
              }
              leaf.cells.insert(Cell(key: column, playerID, at: coordinate), at: place)
              return true
            }
            if cellAdded { row.count += 1 }
          }
        }
      }
      count += 1
    }

    /// Removes `playerID`, who is at `coordinate`, and every part left empty.
    fileprivate mutating func remove(_ playerID: Int64, at coordinate: Coordinate) {
      let (rowNumber, column) = grid.place(of: coordinate)
      var removed = false
      bands.prune(Band.key(of: rowNumber)) { band in
        band.strips.prune(Strip.key(of: rowNumber)) { strip in
          strip.rows.prune(rowNumber) { row in
            var cellRemoved = false
            row.leaves.prune(Leaf.key(of: column)) { leaf in
              cellRemoved = leaf.cells.prune(column) { cell in
                removed = cell.remove(playerID, at: coordinate)
                return cell.isEmpty
              }
              return leaf.cells.isEmpty
            }
            if cellRemoved { row.count -= 1 }
            return row.count == 0
          }
          return strip.rows.isEmpty
        }
        return band.strips.isEmpty
      }
      if removed { count -= 1 }
    }

    /// The row numbered `number`, if any cell of it is occupied.
    fileprivate func row(_ number: Int) -> Row? {
      guard let band = bands.element(Band.key(of: number)),
        let strip = band.strips.element(Strip.key(of: number))
      else { return nil }
      return strip.rows.element(number)
    }

    /// The first `limit` players within `radiusMiles` of `center` (the boundary included) that
    /// come after `cursor` in nearest-first order (see `NearbyHit.precedes`) and for whom
    /// `excluded` is false, nearest first; see `GeoIndex.nearest`.
    public func nearest(
      to center: Coordinate, radiusMiles: Double, after cursor: NearbyHit? = nil, limit: Int,
      shownDistance: (Double) -> Double = { $0 },
      excluding excluded: (Int64) -> Bool = { _ in false }
    ) -> [NearbyHit] {
      precondition(limit > 0, "limit must be positive")
      guard radiusMiles >= 0, count > 0 else { return [] }
      // A point is in when its shown distance is within the shown radius; its exact distance is
      // then at most the shown radius, which is how far the search reaches.
      let shownRadius = shownDistance(radiusMiles)
      let radiusMiles = shownRadius
      let reach = grid.reach(around: center, radiusMiles: radiusMiles)
      let origin = Geo.Origin(center)

      // Rows are opened outwards from the centre's, in the order of their latitude bound (which
      // grows with every row further north or south), and only once a cell of theirs could be
      // as near as the nearest walk already open.
      var rows: [Row] = []
      var frontiers = Heap<Frontier>()
      var best = Heap<NearbyHit>()
      var northward = min(
        max(grid.place(of: center).row, reach.rows.lowerBound), reach.rows.upperBound)
      var southward = northward - 1

      func open(_ row: Row, latitudeBound: Double) {
        let number = rows.count
        rows.append(row)
        let start = row.place(atOrAfter: reach.centerColumn)
        if reach.spanDegrees == nil {
          // Every column is in reach: one frontier walks the whole row.
          frontiers.insert(
            Frontier(
              boundMiles: latitudeBound, row: number, place: start, step: 1, remaining: row.count,
              latitudeBoundMiles: latitudeBound))
          return
        }
        // Two frontiers: one east from the centre, one west, each over the columns nearer its
        // way round, so that every cell is visited once.
        func begin(at place: Row.Place, step: Int) {
          let longitude = reach.longitudeBound(column: row.column(at: place))
          let bound = max(latitudeBound, longitude.miles)
          if longitude.east == (step > 0), bound <= radiusMiles {
            frontiers.insert(
              Frontier(
                boundMiles: bound, row: number, place: place, step: step, remaining: row.count,
                latitudeBoundMiles: latitudeBound))
          }
        }
        begin(at: start, step: 1)
        begin(at: row.stepped(start, by: -1), step: -1)
      }

      // Reads `ids` (all at `distance`) from `slot` on into the page while they can come next;
      // whether the ids after them still can.
      func scan(_ ids: [Int64], from slot: Int, distance: Double) -> Bool {
        for playerID in ids[slot...] {
          let hit = NearbyHit(playerID: playerID, distanceMiles: distance)
          if best.count == limit {
            if !(hit < best.max!) { return false }
            if excluded(playerID) { continue }
            _ = best.replaceMax(with: hit)
          } else if !excluded(playerID) {
            best.insert(hit)
          }
        }
        return true
      }

      // Every player of a group is at the same distance, and its ids ascend: a group is skipped
      // whole, or read from its first id that can come next until none can.
      func visit(_ group: Group) {
        let distance = shownDistance(origin.distanceMiles(to: group.coordinate))
        guard distance <= shownRadius else { return }
        var after: Int64?
        if let cursor {
          if distance < cursor.distanceMiles { return }
          if distance == cursor.distanceMiles { after = cursor.playerID }
        }
        if best.count == limit, distance > best.max!.distanceMiles { return }
        switch group.ids {
        case .one(let ids):
          _ = scan(
            ids, from: after.map { id in ids.partitionPoint { $0 > id } } ?? 0, distance: distance)
        case .many(let chunks):
          var chunk = after.map { id in chunks.partitionPoint { $0.last! > id } } ?? 0
          var slot =
            chunk < chunks.count
            ? after.map { id in chunks[chunk].partitionPoint { $0 > id } } ?? 0 : 0
          while chunk < chunks.count, scan(chunks[chunk], from: slot, distance: distance) {
            chunk += 1
            slot = 0
          }
        }
      }

      while true {
        // Open every row that could hold a cell as near as the nearest open walk's next one.
        while true {
          let northBound =
            northward <= reach.rows.upperBound
            ? reach.latitudeBoundMiles(row: northward) : .infinity
          let southBound =
            southward >= reach.rows.lowerBound
            ? reach.latitudeBoundMiles(row: southward) : .infinity
          let bound = min(northBound, southBound)
          guard bound <= radiusMiles else { break }
          if let nearest = frontiers.min, nearest.boundMiles < bound { break }
          if best.count == limit, shownDistance(bound) > best.max!.distanceMiles { break }
          let number: Int
          if northBound <= southBound {
            number = northward
            northward += 1
          } else {
            number = southward
            southward -= 1
          }
          if let row = row(number) { open(row, latitudeBound: bound) }
        }

        guard var frontier = frontiers.popMin() else { break }
        if best.count == limit, shownDistance(frontier.boundMiles) > best.max!.distanceMiles {
          break
        }
        let row = rows[frontier.row]
        let cell = row.leaves[frontier.place.leaf].cells[frontier.place.slot]
        visit(cell.first)
        for group in cell.others ?? [] { visit(group) }
        // The next cell along the frontier, while one is left and can be in reach.
        frontier.remaining -= 1
        guard frontier.remaining > 0 else { continue }
        frontier.place = row.stepped(frontier.place, by: frontier.step)
        if reach.spanDegrees != nil {
          let longitude = reach.longitudeBound(column: row.column(at: frontier.place))
          frontier.boundMiles = max(frontier.latitudeBoundMiles, longitude.miles)
          guard longitude.east == (frontier.step > 0), frontier.boundMiles <= radiusMiles else {
            continue
          }
        }
        frontiers.insert(frontier)
      }
      return best.unordered.sorted()
    }
  }

  /// A walk along one grid row, east or west from the search's centre, and how near the next
  /// cell on it can be.
  private struct Frontier: Comparable {
    var boundMiles: Double
    /// The row's place among the rows the search has opened.
    var row: Int
    var place: Row.Place
    var step: Int
    var remaining: Int
    var latitudeBoundMiles: Double

    static func < (a: Frontier, b: Frontier) -> Bool { a.boundMiles < b.boundMiles }
    static func == (a: Frontier, b: Frontier) -> Bool { a.boundMiles == b.boundMiles }
  }
}

/// An entry of a level of the snapshot, whose array keeps entries sorted by `key`.
private protocol Keyed {
  var key: Int { get }
}

/// 1,024 grid rows (`key` is the row number divided by 1,024), by strip.
private struct Band: Keyed {
  let key: Int
  var strips: [Strip]

  static func key(of row: Int) -> Int { row >> 10 }
}

/// 32 grid rows (`key` is the row number divided by 32), by row.
private struct Strip: Keyed {
  let key: Int
  var rows: [Row]

  static func key(of row: Int) -> Int { row >> 5 }
}

/// One grid row (`key` is its number), its occupied cells in leaves of 8 columns.
private struct Row: Keyed {
  let key: Int
  /// Occupied cells in the row.
  var count: Int
  var leaves: [Leaf]

  /// A cell of the row: its leaf's place in `leaves` and its own in the leaf.
  struct Place {
    var leaf: Int
    var slot: Int
  }

  /// The first occupied cell at or after `column`, or the row's first when there is none.
  func place(atOrAfter column: Int) -> Place {
    let leaf = leaves.place(of: Leaf.key(of: column))
    guard leaf < leaves.count else { return Place(leaf: 0, slot: 0) }
    guard leaves[leaf].key == Leaf.key(of: column) else { return Place(leaf: leaf, slot: 0) }
    let slot = leaves[leaf].cells.place(of: column)
    if slot < leaves[leaf].cells.count { return Place(leaf: leaf, slot: slot) }
    return Place(leaf: leaf + 1 < leaves.count ? leaf + 1 : 0, slot: 0)
  }

  /// The occupied cell next to `place`, east (`step` 1) or west (-1), round the row.
  func stepped(_ place: Place, by step: Int) -> Place {
    if step > 0 {
      if place.slot + 1 < leaves[place.leaf].cells.count {
        return Place(leaf: place.leaf, slot: place.slot + 1)
      }
      return Place(leaf: place.leaf + 1 < leaves.count ? place.leaf + 1 : 0, slot: 0)
    }
    if place.slot > 0 { return Place(leaf: place.leaf, slot: place.slot - 1) }
    let leaf = place.leaf > 0 ? place.leaf - 1 : leaves.count - 1
    return Place(leaf: leaf, slot: leaves[leaf].cells.count - 1)
  }

  /// The column of the cell at `place`.
  func column(at place: Place) -> Int { leaves[place.leaf].cells[place.slot].key }
}

/// Up to 8 columns of a row (`key` is the column divided by 8), by occupied cell. Leaves are
/// narrow so that a change copies few cells; a row has few enough leaves for the same.
private struct Leaf: Keyed {
  let key: Int
  var cells: [Cell]

  static func key(of column: Int) -> Int { column >> 3 }
}

/// One occupied grid cell (`key` is its column): its positions, the first in the cell itself
/// (a cell of the shown positions' grid holds one), any others beside it.
private struct Cell: Keyed {
  let key: Int
  /// Empty only when the cell is: a position left empty gives way to one of `others`.
  var first: Group
  /// Nil when there are none, so that copying a cell copies one reference.
  var others: [Group]?

  /// A cell holding `playerID` at `coordinate`.
  init(key: Int, _ playerID: Int64, at coordinate: Coordinate) {
    self.key = key
    self.first = Group(coordinate: coordinate, ids: .one([playerID]))
  }

  var isEmpty: Bool { first.isEmpty }

  mutating func insert(_ playerID: Int64, at coordinate: Coordinate) {
    if first.coordinate == coordinate {
      first.insert(playerID)
    } else if let place = others?.firstIndex(where: { $0.coordinate == coordinate }) {
      others![place].insert(playerID)
    } else {
      others = (others ?? []) + [Group(coordinate: coordinate, ids: .one([playerID]))]
    }
  }

  /// Removes `playerID` from `coordinate`'s group; whether they were there.
  mutating func remove(_ playerID: Int64, at coordinate: Coordinate) -> Bool {
    if first.coordinate == coordinate {
      let removed = first.remove(playerID)
      if first.isEmpty, let next = others?.popLast() {
        first = next
        if others!.isEmpty { others = nil }
      }
      return removed
    }
    guard let place = others?.firstIndex(where: { $0.coordinate == coordinate }) else {
      return false
    }
    let removed = others![place].remove(playerID)
    if others![place].isEmpty {
      others!.remove(at: place)
      if others!.isEmpty { others = nil }
    }
    return removed
  }
}

/// The players at one position: their ids in ascending order.
private struct Group {
  let coordinate: Coordinate
  var ids: IDs

  /// A position's ids: in one array, or in chunks of at most `chunkCapacity` when there are
  /// more.
  enum IDs {
    /// Every id (none when the group is empty).
    case one([Int64])
    /// Two chunks or more, none empty.
    case many([[Int64]])
  }

  static let chunkCapacity = 256

  var isEmpty: Bool {
    if case .one(let ids) = ids { return ids.isEmpty }
    return false
  }

  mutating func insert(_ playerID: Int64) {
    switch ids {
    case .one(let all):
      let slot = all.partitionPoint { $0 > playerID }
      if all.count < Self.chunkCapacity {
        ids = .one(all.inserting(playerID, at: slot))
      } else {
        let (low, high) = Self.split(all, inserting: playerID, at: slot)
        ids = .many([low, high])
      }
    case .many(var chunks):
      ids = .one([])
      Self.insert(playerID, into: &chunks)
      ids = .many(chunks)
    }
  }

  /// Removes `playerID`; whether they were there.
  mutating func remove(_ playerID: Int64) -> Bool {
    switch ids {
    case .one(let all):
      let slot = all.partitionPoint { $0 >= playerID }
      guard slot < all.count, all[slot] == playerID else { return false }
      ids = .one(all.removing(at: slot))
      return true
    case .many(var chunks):
      ids = .one([])
      let removed = Self.remove(playerID, from: &chunks)
      ids = chunks.count == 1 ? .one(chunks[0]) : .many(chunks)
      return removed
    }
  }

  /// Inserts `playerID` into `chunks` (not empty), splitting a full chunk.
  private static func insert(_ playerID: Int64, into chunks: inout [[Int64]]) {
    // The first chunk whose last id is greater, or the last chunk.
    let chunk = min(chunks.partitionPoint { $0.last! > playerID }, chunks.count - 1)
    let ids = chunks[chunk]
    let slot = ids.partitionPoint { $0 > playerID }
    if ids.count < chunkCapacity {
      chunks[chunk] = ids.inserting(playerID, at: slot)
    } else {
      let (low, high) = split(ids, inserting: playerID, at: slot)
      chunks[chunk] = low
      chunks.insert(high, at: chunk + 1)
    }
  }

  /// The two chunks a full chunk `ids` becomes with `playerID` inserted at `slot`: halves, or
  /// the whole chunk and the new id alone when it comes last, so that ids arriving in
  /// ascending order fill chunks whole.
  private static func split(_ ids: [Int64], inserting playerID: Int64, at slot: Int) -> (
    [Int64], [Int64]
  ) {
    if slot == ids.count { return (ids, [playerID]) }
    let half = ids.count / 2
    let low = Array(ids[..<half])
    let high = Array(ids[half...])
    return slot <= half
      ? (low.inserting(playerID, at: slot), high)
      : (low, high.inserting(playerID, at: slot - half))
  }

  /// Removes `playerID` from `chunks` (two or more), dropping a chunk left empty and joining
  /// one left small to a neighbour; whether they were there.
  private static func remove(_ playerID: Int64, from chunks: inout [[Int64]]) -> Bool {
    let chunk = chunks.partitionPoint { $0.last! >= playerID }
    guard chunk < chunks.count else { return false }
    let ids = chunks[chunk]
    let slot = ids.partitionPoint { $0 >= playerID }
    guard slot < ids.count, ids[slot] == playerID else { return false }
    if ids.count == 1 {
      chunks.remove(at: chunk)
      return true
    }
    let left = ids.removing(at: slot)
    // A chunk left small joins a neighbour when the two fit in three quarters of one.
    let joined = chunkCapacity * 3 / 4
    if left.count < chunkCapacity / 4 {
      if chunk + 1 < chunks.count, left.count + chunks[chunk + 1].count <= joined {
        chunks[chunk] = left + chunks[chunk + 1]
        chunks.remove(at: chunk + 1)
        return true
      }
      if chunk > 0, chunks[chunk - 1].count + left.count <= joined {
        chunks[chunk - 1] = chunks[chunk - 1] + left
        chunks.remove(at: chunk)
        return true
      }
    }
    chunks[chunk] = left
    return true
  }
}

extension Array {
  /// The place of the first element for which `isAfter` holds, all elements for which it
  /// fails coming first.
  @inline(__always)
  fileprivate func partitionPoint(_ isAfter: (Element) -> Bool) -> Int {
    var low = 0
    var high = count
    while low < high {
      let middle = (low + high) / 2
      if isAfter(self[middle]) { high = middle } else { low = middle + 1 }
    }
    return low
  }

  /// A new array, of exactly the size it needs, with `element` inserted at `place`.
  fileprivate func inserting(_ element: Element, at place: Int) -> [Element] {
    [Element](unsafeUninitializedCapacity: count + 1) { buffer, initialized in
      self.withUnsafeBufferPointer { old in
        var next = buffer.baseAddress!
        if place > 0 {
          next.initialize(from: old.baseAddress!, count: place)
          next += place
        }
        next.initialize(to: element)
        next += 1
        if place < old.count {
          next.initialize(from: old.baseAddress! + place, count: old.count - place)
        }
      }
      initialized = count + 1
    }
  }

  /// A new array, of exactly the size it needs, without the element at `place`.
  fileprivate func removing(at place: Int) -> [Element] {
    [Element](unsafeUninitializedCapacity: count - 1) { buffer, initialized in
      self.withUnsafeBufferPointer { old in
        var next = buffer.baseAddress!
        if place > 0 {
          next.initialize(from: old.baseAddress!, count: place)
          next += place
        }
        if place + 1 < old.count {
          next.initialize(from: old.baseAddress! + place + 1, count: old.count - place - 1)
        }
      }
      initialized = count - 1
    }
  }
}

extension Array where Element: Keyed {
  /// The place of the first element whose key is at least `key`.
  @inline(__always)
  fileprivate func place(of key: Int) -> Int { partitionPoint { $0.key >= key } }

  /// The element whose key is `key`, if any.
  fileprivate func element(_ key: Int) -> Element? {
    let place = place(of: key)
    return place < count && self[place].key == key ? self[place] : nil
  }

  /// Runs `body` on the element whose key is `key`, in place, first inserting `make` when
  /// there is none.
  @discardableResult
  fileprivate mutating func modify<Result>(
    _ key: Int, orMake make: @autoclosure () -> Element, _ body: (inout Element) -> Result
  ) -> Result {
    let place = place(of: key)
    if place < count, self[place].key == key { return body(&self[place]) }
    var element = make()
    let result = body(&element)
    insert(element, at: place)
    return result
  }

  /// Runs `body` on the element whose key is `key`, in place, if there is one, and removes the
  /// element when `body` says it is left empty; whether it was removed.
  @discardableResult
  fileprivate mutating func prune(_ key: Int, _ body: (inout Element) -> Bool) -> Bool {
    let place = place(of: key)
    guard place < count, self[place].key == key else { return false }
    guard body(&self[place]) else { return false }
    remove(at: place)
    return true
  }
}
