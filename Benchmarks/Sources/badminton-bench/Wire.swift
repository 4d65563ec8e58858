import BadmintonAPI
import BadmintonDomain
import BadmintonProjections
import BenchmarkWorkloads
import CZstdBench
import Foundation
import GRPCPeer
import SwiftProtobuf

/// The wire figures: a FindMatches response of 50 candidates encoded and decoded through our
/// protoc-c path and through swift-protobuf, zstd on it, and whether a trained zstd dictionary
/// would pay off for typical messages.
enum Wire {
  static func run(_ report: Report, quick: Bool) throws {
    let fixture = FindMatchesFixture(requests: 100_000, pageSize: 50)
    let page = fixture.page()
    let ours = fixture.response(page)
    let peer = fixture.peerResponse(page)
    let bytes = ours.serializedBytes()
    let peerBytes: [UInt8] = try peer.serializedBytes()
    report.section(
      "A FindMatches response of \(page.candidates.count) candidates: \(bytes.count) bytes"
        + " (swift-protobuf: \(peerBytes.count))")
    let runs = quick ? 2_000 : 20_000

    let encode = perRun(runs) { _ in blackHole(ours.serializedBytes()) }
    let decode = try perRun(runs) { _ in
      blackHole(try FindMatchesResponse(serializedBytes: bytes))
    }
    let peerEncode = try perRun(runs) { _ in
      blackHole(try peer.serializedBytes() as [UInt8])
    }
    let peerDecode = try perRun(runs) { _ in
      blackHole(try Badminton_V1_FindMatchesResponse(serializedBytes: peerBytes))
    }
    report.add("encode, ours (protoc-c)", encode.formatted)
    report.add("encode, swift-protobuf", peerEncode.formatted)
    report.add("decode, ours (protoc-c)", decode.formatted)
    report.add("decode, swift-protobuf", peerDecode.formatted)

    // zstd at the protocol's level 1, with one reused context as the connection keeps.
    let compressor = ZSTD_createCCtx()!
    let decompressor = ZSTD_createDCtx()!
    defer {
      ZSTD_freeCCtx(compressor)
      ZSTD_freeDCtx(decompressor)
    }
    var compressed = [UInt8](repeating: 0, count: ZSTD_compressBound(bytes.count))
    var size = 0
    let compress = perRun(runs) { _ in
      size = ZSTD_compressCCtx(compressor, &compressed, compressed.count, bytes, bytes.count, 1)
    }
    var restored = [UInt8](repeating: 0, count: bytes.count)
    let decompress = perRun(runs) { _ in
      _ = ZSTD_decompressDCtx(decompressor, &restored, restored.count, compressed, size)
    }
    precondition(restored == bytes, "zstd round trip")
    report.add(
      "zstd level 1",
      String(
        format: "%d -> %d bytes, ratio %.2f", bytes.count, size,
        Double(bytes.count) / Double(size)))
    report.add("zstd compress / decompress", "\(compress.formatted) / \(decompress.formatted)")
    try dictionary(report, quick: quick)
  }

  /// Trains a dictionary on half of a sample of typical messages and compares, on the other
  /// half, zstd level 1 with and without it.
  static func dictionary(_ report: Report, quick: Bool) throws {
    let fixture = FindMatchesFixture(requests: 100_000, pageSize: PageRules.defaultSize)
    let world = SyntheticWorld.generate(
      requests: 100_000, startUnixMs: MatchingWorkloads.startUnixMs)
    var samples: [[UInt8]] = []
    for n in 0..<(quick ? 1_000 : 4_000) {
      let query = MatchingWorkloads.query(n, in: world, seed: 1234)
      let page = fixture.board.search(for: query, excluding: [], limit: 20, after: nil)
      var response = fixture.response(page)
      if n % 2 == 1, let first = response.candidates.first {
        // Half are events: a partner whose availability fits.
        samples.append(
          Event(
            sequence: UInt64(n), createdAtUnixMs: MatchingWorkloads.startUnixMs,
            body: .partnerAvailable(PartnerAvailable(availabilityID: query.id, candidate: first))
          ).serializedBytes())
        continue
      }
      response.nextPageToken = page.nextCursor?.token ?? ""
      samples.append(response.serializedBytes())
    }
    let training = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
    let testing =
      stride(from: 1, to: samples.count, by: 2).map { samples[$0] }
      + stride(from: 0, to: samples.count, by: 4).map { samples[$0] }
    let joined = training.flatMap { $0 }
    let sizes = training.map { $0.count }
    var dictionary = [UInt8](repeating: 0, count: 16 * 1024)
    let dictionarySize = ZDICT_trainFromBuffer(
      &dictionary, dictionary.count, joined, sizes, UInt32(sizes.count))
    guard ZDICT_isError(dictionarySize) == 0 else {
      report.add(
        "zstd dictionary", "training failed: \(String(cString: ZDICT_getErrorName(dictionarySize)))"
      )
      return
    }
    let context = ZSTD_createCCtx()!
    defer { ZSTD_freeCCtx(context) }
    let prepared = ZSTD_createCDict(dictionary, dictionarySize, 1)!
    defer { ZSTD_freeCDict(prepared) }
    var plain = 0
    var without = 0
    var with = 0
    var smallPlain = 0
    var smallWith = 0
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    let clock = ContinuousClock()
    var timeWith: Duration = .zero
    for message in testing {
      let a = ZSTD_compressCCtx(context, &buffer, buffer.count, message, message.count, 1)
      let start = clock.now
      let b = ZSTD_compress_usingCDict(
        context, &buffer, buffer.count, message, message.count, prepared)
      timeWith += clock.now - start
      plain += message.count
      without += min(a, message.count)
      with += min(b, message.count)
      if message.count < 1024 {
        smallPlain += message.count
        smallWith += min(b, message.count)
      }
    }
    report.add(
      "typical messages (\(testing.count): events and result pages), mean size",
      "\(plain / testing.count) bytes")
    report.add(
      "zstd level 1 without / with a \(dictionarySize)-byte dictionary",
      String(
        format: "ratio %.2f / %.2f; messages under 1 KiB (sent plain today) %.2f with it",
        Double(plain) / Double(without), Double(plain) / Double(with),
        Double(smallPlain) / Double(max(smallWith, 1))))
    report.add("compress with the dictionary, per message", (timeWith / testing.count).formatted)
  }

  /// The mean time of one run of `body` over `runs` runs.
  static func perRun(_ runs: Int, _ body: (Int) throws -> Void) rethrows -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    for run in 0..<runs { try body(run) }
    return (clock.now - start) / runs
  }
}

/// Keeps the optimizer from removing a result.
@inline(never)
func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}
