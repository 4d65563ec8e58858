import BadmintonMetrics
import BadmintonPostgres
import BadmintonProjections
import BadmintonSQLite
import BadmintonServices
import BadmintonStore
import CoreMetrics
import Logging
import Prometheus

/// Metrics for the process, when `--metrics-port` or `--console-port` is given: swift-metrics
/// bootstrapped (before the server and services make their metrics) with a Prometheus factory
/// for the endpoint, the operator console's recent window for its live page, or both; the
/// store's commit times; and the endpoint that serves them.
struct MetricsBootstrap {
  /// Where every metric of the process is collected for the endpoint.
  let registry = PrometheusCollectorRegistry()

  /// Bootstraps swift-metrics with Prometheus's factory when `prometheus`, and `recent` when
  /// given; call once, before anything makes a metric.
  init(prometheus: Bool, recent: RecentMetrics?) {
    var factories: [any MetricsFactory] = []
    if prometheus { factories.append(PrometheusSetup.factory(registry: registry)) }
    if let recent { factories.append(recent) }
    MetricsSystem.bootstrap(
      factories.count == 1 ? factories[0] : MultiplexMetricsHandler(factories: factories))
  }

  /// Records the commit times of `store`.
  func observe(_ store: SQLitePlayerStore) {
    store.observeCommitDurations(Self.commitTimer())
  }

  /// Records the commit times of `store`.
  func observe(_ store: PostgresStore) {
    store.observeCommitDurations(Self.commitTimer())
  }

  /// Records a commit's time in `badminton_store_commit_duration_seconds`.
  private static func commitTimer() -> @Sendable (Duration) -> Void {
    let commits = Timer(label: PrometheusSetup.storeCommitDuration)
    return { duration in
      let (seconds, attoseconds) = duration.components
      commits.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
  }

  /// The endpoint on `host`:`port`, reading the sizes of `players`' match board and nearby index
  /// at each scrape.
  func endpoint(host: String, port: Int, players: PlayerServices, logger: Logger)
    -> MetricsEndpoint
  {
    let board = Gauge(label: PrometheusSetup.matchBoardRequests)
    let nearby = Gauge(label: PrometheusSetup.nearbyIndexPlayers)
    let (matchBoard, index) = (players.board, players.index)
    return MetricsEndpoint(
      configuration: MetricsEndpointConfiguration(host: host, port: port),
      registry: registry,
      beforeScrape: {
        board.record(matchBoard.count)
        nearby.record(index.count)
      },
      logger: logger)
  }
}
