import GRPCCore
import GRPCNIOTransportHTTP2

/// The call a `PeerClient` makes.
public enum PeerCall: Sendable {
  /// badminton.v1.Matching/FindMatches with this request.
  case findMatches(Badminton_V1_FindMatchesRequest)
  /// badminton.rpc.v1.Health/Check with an empty request.
  case healthCheck
}

/// Calls a `PeerServer`'s FindMatches or Health/Check on 127.0.0.1 over one HTTP/2 connection
/// (plaintext) and times the calls.
///
/// Each measurement opens its own client; one untimed call opens the connection before anything
/// else happens, so no figure includes connection setup.
public enum PeerClient {
  /// One FindMatches in flight at a time; see `latencies(port:call:calls:warmup:)`.
  public static func latencies(
    port: Int,
    request: Badminton_V1_FindMatchesRequest,
    calls: Int,
    warmup: Int
  ) async throws -> [Duration] {
    try await latencies(port: port, call: .findMatches(request), calls: calls, warmup: warmup)
  }

  /// One call in flight at a time over one HTTP/2 connection, flush coalescing off, `warmup`
  /// calls first and not measured; returns each measured call's round trip.
  public static func latencies(
    port: Int,
    call: PeerCall,
    calls: Int,
    warmup: Int
  ) async throws -> [Duration] {
    precondition(calls >= 0 && warmup >= 0, "calls and warmup must not be negative")
    return try await withCaller(port: port, call: call, flushCoalescing: false) { invoke in
      for _ in 0..<warmup {
        try await invoke()
      }
      let clock = ContinuousClock()
      var latencies: [Duration] = []
      latencies.reserveCapacity(calls)
      for _ in 0..<calls {
        let start = clock.now
        try await invoke()
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
    try await load(
      port: port, call: .findMatches(request), inFlight: inFlight, duration: duration,
      warmup: warmup, flushCoalescing: flushCoalescing)
  }

  /// `load(port:request:...)` for any `PeerCall`.
  public static func load(
    port: Int,
    call: PeerCall,
    inFlight: Int,
    duration: Duration,
    warmup: Duration,
    flushCoalescing: Bool = false
  ) async throws -> (calls: Int, elapsed: Duration, latencies: [Duration]) {
    precondition(inFlight > 0, "inFlight must be positive")
    return try await withCaller(
      port: port,
      call: call,
      flushCoalescing: flushCoalescing
    ) { invoke in
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
              try await invoke()
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

  /// Runs `body` with a function that makes `call` once, on a new connection to `port` that one
  /// call has opened.
  private static func withCaller<Result: Sendable>(
    port: Int,
    call: PeerCall,
    flushCoalescing: Bool,
    _ body: (@escaping @Sendable () async throws -> Void) async throws -> Result
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
      let invoke: @Sendable () async throws -> Void
      switch call {
      case .findMatches(let request):
        let matching = Badminton_V1_Matching.Client(wrapping: client)
        invoke = { _ = try await matching.findMatches(request) }
      case .healthCheck:
        let health = Badminton_Rpc_V1_Health.Client(wrapping: client)
        invoke = { _ = try await health.check(Badminton_Rpc_V1_HealthCheckRequest()) }
      }
      try await invoke()
      return try await body(invoke)
    }
  }
}
