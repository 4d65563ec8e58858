import BadmintonMetrics
import BadmintonProjections
import BadmintonSQLite
import BadmintonServices
import BadmintonStore
import CoreMetrics
import Logging
import Prometheus

/// Metrics for the process, when `--metrics-port` is given: swift-metrics bootstrapped with a
/// Prometheus factory (before the server and services make their metrics), the store's commit
/// times, and the endpoint that serves them.
struct MetricsBootstrap {
  /// Where every metric of the process is collected.
  let registry = PrometheusCollectorRegistry()

  /// Bootstraps swift-metrics; call once, before anything makes a metric.
  init() {
    MetricsSystem.bootstrap(PrometheusSetup.factory(registry: registry))
  }

  /// Records the commit times of `store`.
  func observe(_ store: SQLitePlayerStore) {
    let commits = Timer(label: PrometheusSetup.storeCommitDuration)
    store.observeCommitDurations { duration in
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
