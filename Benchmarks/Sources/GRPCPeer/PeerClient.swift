import GRPCCore
import GRPCNIOTransportHTTP2

/// Calls a `PeerServer`'s FindMatches on 127.0.0.1 over one HTTP/2 connection (plaintext) and
/// times the calls.
///
/// Each measurement opens its own client; one untimed call opens the connection before anything
/// else happens, so no figure includes connection setup.
public enum PeerClient {
  /// One call in flight at a time over one HTTP/2 connection, flush coalescing off, `warmup`
  /// calls first and not measured; returns each measured call's round trip.
  public static func latencies(
    port: Int,
    request: Badminton_V1_FindMatchesRequest,
    calls: Int,
    warmup: Int
  ) async throws -> [Duration] {
    precondition(calls >= 0 && warmup >= 0, "calls and warmup must not be negative")
    return try await withMatchingClient(
      port: port,
      request: request,
      flushCoalescing: false
    ) { matching in
      for _ in 0..<warmup {
        _ = try await matching.findMatches(request)
      }
      let clock = ContinuousClock()
      var latencies: [Duration] = []
      latencies.reserveCapacity(calls)
      for _ in 0..<calls {
        let start = clock.now
        _ = try await matching.findMatches(request)
        latencies.append(start.duration(to: clock.now))
      }
      return latencies
    }
  }

  /// `inFlight` calls kept in flight at all times on ONE connection for `duration` after
  /// `warmup`; returns calls completed in the measured window, the window's length, and each
  /// measured call's round trip.
  ///
  /// The calls run without a break from the start of the warmup to the end of the window: a call
  /// counts when it completes inside the window, and no call starts after it. `flushCoalescing`
  /// turns on grpc-swift-nio-transport's default flush coalescing on the client's connection.
  public static func load(
    port: Int,
    request: Badminton_V1_FindMatchesRequest,
    inFlight: Int,
    duration: Duration,
    warmup: Duration,
    flushCoalescing: Bool = false
  ) async throws -> (calls: Int, elapsed: Duration, latencies: [Duration]) {
    precondition(inFlight > 0, "inFlight must be positive")
    return try await withMatchingClient(
      port: port,
      request: request,
      flushCoalescing: flushCoalescing
    ) { matching in
      let clock = ContinuousClock()
      let windowStart = clock.now.advanced(by: warmup)
      let windowEnd = windowStart.advanced(by: duration)
      let latencies = try await withThrowingTaskGroup { group in
        for _ in 0..<inFlight {
          group.addTask {
            var latencies: [Duration] = []
            while true {
              let start = clock.now
              guard start < windowEnd else { break }
              _ = try await matching.findMatches(request)
              let end = clock.now
              if end >= windowStart && end < windowEnd {
                latencies.append(start.duration(to: end))
              }
            }
            return latencies
          }
        }
        var all: [Duration] = []
        for try await latencies in group {
          all += latencies
        }
        return all
      }
      return (latencies.count, windowStart.duration(to: windowEnd), latencies)
    }
  }

  /// Runs `body` with a Matching client on a new connection to `port`, opened by one call with
  /// `request`.
  private static func withMatchingClient<Result: Sendable>(
    port: Int,
    request: Badminton_V1_FindMatchesRequest,
    flushCoalescing: Bool,
    _ body: (Badminton_V1_Matching.Client<HTTP2ClientTransport.Posix>) async throws -> Result
  ) async throws -> Result {
    let transport = try HTTP2ClientTransport.Posix(
      target: .ipv4(address: "127.0.0.1", port: port),
      transportSecurity: .plaintext,
      config: .defaults { config in
        if !flushCoalescing {
          config.connection.flushCoalescing = nil
        }
      }
    )
    return try await withGRPCClient(transport: transport) { client in
      let matching = Badminton_V1_Matching.Client(wrapping: client)
      _ = try await matching.findMatches(request)
      return try await body(matching)
    }
  }
}
