import Foundation
import NIOCore
import NIOPosix

/// A plain HTTP/1.1 exchange over TCP: sends exact bytes, reads until the server closes, and
/// splits what came back. Written from RFC 9112 rather than with the server's HTTP code.
struct HTTPExchange {
  /// Every byte the server sent before it closed.
  let bytes: [UInt8]

  /// Sends `request` to 127.0.0.1:`port` and reads until the server closes the connection (or
  /// resets it).
  static func send(_ request: [UInt8], port: Int) async throws -> HTTPExchange {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .connect(host: "127.0.0.1", port: port) { channel in
        channel.eventLoop.makeCompletedFuture {
          try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }
      }
    var received: [UInt8] = []
    try? await channel.executeThenClose { inbound, outbound in
      try? await outbound.write(ByteBuffer(bytes: request))
      for try await var chunk in inbound {
        received += chunk.readBytes(length: chunk.readableBytes) ?? []
      }
    }
    return HTTPExchange(bytes: received)
  }

  /// `METHOD PATH` with the usual headers, to 127.0.0.1:`port`.
  static func request(_ path: String, method: String = "GET", port: Int) async throws
    -> HTTPExchange
  {
    let text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: test\r\n\r\n"
    return try await send(Array(text.utf8), port: port)
  }

  private var text: String { String(decoding: bytes, as: UTF8.self) }

  /// The status code, or nil when nothing (or no status line) came back.
  var status: Int? {
    guard let line = text.split(separator: "\r\n").first else { return nil }
    let parts = line.split(separator: " ")
    guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.") else { return nil }
    return Int(parts[1])
  }

  /// The value of header `name` (case-insensitive).
  func header(_ name: String) -> String? {
    let head = text.components(separatedBy: "\r\n\r\n").first ?? ""
    for line in head.split(separator: "\r\n").dropFirst() {
      let parts = line.split(separator: ":", maxSplits: 1)
      if parts.count == 2, parts[0].lowercased() == name.lowercased() {
        return parts[1].trimmingCharacters(in: .whitespaces)
      }
    }
    return nil
  }

  /// What follows the headers.
  var body: String {
    guard let range = text.range(of: "\r\n\r\n") else { return "" }
    return String(text[range.upperBound...])
  }
}

/// The samples of a Prometheus text exposition, parsed from the format's description: one
/// `name{label="value",...} number` a line, `#` lines skipped.
struct Scrape {
  /// One sample line.
  struct Sample {
    let name: String
    let labels: [String: String]
    let value: Double
  }

  let samples: [Sample]

  init(_ text: String) {
    var samples: [Sample] = []
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
      guard let space = line.lastIndex(of: " "), let value = Double(line[space...].dropFirst())
      else { continue }
      let series = line[..<space]
      var labels: [String: String] = [:]
      var name = String(series)
      if let open = series.firstIndex(of: "{"), series.hasSuffix("}") {
        name = String(series[..<open])
        let inner = series[series.index(after: open)..<series.index(before: series.endIndex)]
        for pair in inner.split(separator: ",") {
          let keyValue = pair.split(separator: "=", maxSplits: 1)
          guard keyValue.count == 2 else { continue }
          labels[String(keyValue[0])] = String(keyValue[1].dropFirst().dropLast())
        }
      }
      samples.append(Sample(name: name, labels: labels, value: value))
    }
    self.samples = samples
  }

  /// The value of the sample `name` whose labels include `labels`; nil when there is none.
  func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
    samples.first { sample in
      sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
    }?.value
  }

  /// The sum of the samples `name` whose labels include `labels`; 0 when there is none.
  func total(_ name: String, _ labels: [String: String] = [:]) -> Double {
    samples.filter { sample in
      sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
    }.reduce(0) { $0 + $1.value }
  }
}
