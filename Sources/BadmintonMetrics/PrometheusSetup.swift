public import Prometheus

/// The Prometheus side of the server's metrics: the factory that swift-metrics is bootstrapped
/// with, and the names of the metrics the executable records itself (the RPC core's are in
/// `ServerMetrics.Name`). docs/operations.md describes each metric.
public enum PrometheusSetup {
  /// Time of the store's commits, in seconds (histogram, no labels).
  public static let storeCommitDuration = "badminton_store_commit_duration_seconds"
  /// Availabilities on the match board, read at each scrape (gauge, no labels).
  public static let matchBoardRequests = "badminton_match_board_requests"
  /// Players in the nearby index, read at each scrape (gauge, no labels).
  public static let nearbyIndexPlayers = "badminton_nearby_index_players"

  /// Buckets of `badminton_rpc_call_duration_seconds`: 100 µs to 10 s, for calls that mostly
  /// answer from memory in well under a millisecond.
  public static let callDurationBuckets: [Duration] = [
    .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
    .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25),
    .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
    .milliseconds(2500), .seconds(5), .seconds(10),
  ]

  /// Buckets of `badminton_store_commit_duration_seconds`: 50 µs to 2.5 s, around a disk sync.
  public static let commitDurationBuckets: [Duration] = [
    .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500),
    .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10),
    .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
    .milliseconds(500), .seconds(1), .milliseconds(2500),
  ]

  /// A swift-metrics factory that records into `registry`, with the buckets above.
  public static func factory(registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
    var factory = PrometheusMetricsFactory(registry: registry)
    factory.durationHistogramBuckets = [
      "badminton_rpc_call_duration_seconds": callDurationBuckets,
      storeCommitDuration: commitDurationBuckets,
    ]
    return factory
  }
}
