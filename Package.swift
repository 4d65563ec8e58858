// swift-tools-version:6.1
import PackageDescription

/// Settings every Swift target shares: Swift 6 mode and the upcoming features we hold to.
let defaultSwiftSettings: [SwiftSetting] = [
  .swiftLanguageMode(.v6),
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
  .enableUpcomingFeature("MemberImportVisibility"),
]

/// How `badminton-server` is linked on Linux, so that an idle server holds less resident memory
/// (docs/deployment.md#building-the-server). Most of an idle server's resident memory is pages
/// of its own executable, and two parts of them are only the linker's bookkeeping:
/// - `-use-ld=lld -z pack-relative-relocs`: the toolchain's lld, which packs the executable's
///   144,000 relative relocations into a bitmap (DT_RELR) instead of 24 bytes each. The dynamic
///   loader reads every one at each start: 3.4 MB resident, now under 0.1 MB. It stays a
///   position-independent executable (ASLR as before); the loader must know DT_RELR: glibc 2.36
///   or later (Debian 12), and lld marks the executable so an older one refuses it at once.
/// - `--no-export-dynamic`: with `--static-swift-stdlib` the toolchain exports every symbol of
///   the package's own code from the executable (`static-stdlib-args.lnk`), 56,000 of them
///   that nothing loads against; the loader and libc touch their tables: 1.3 MB resident.
///   Crash backtraces still name functions (from the symbol table, not the dynamic one).
/// - `-z max-page-size=65536`: each segment starts on a 64 KB boundary. A fault in the code maps
///   the aligned 64 KB around it (the kernel's fault-around), so what an idle server holds of its
///   code depends on where its functions fall against those boundaries. Unaligned, the code
///   started wherever the constants before it ended: 4 KB more of them moved every function
///   against the boundaries, and an idle server running the same functions held 2.3 MB more of
///   code (31 MB). Aligned, a change moves only the code that follows it.
let serverLinkerSettings: [LinkerSetting] = [
  .unsafeFlags(
    [
      "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
      "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "max-page-size=65536",
    ],
    .when(platforms: [.linux]))
]

let package = Package(
  name: "BadmintonBuddy",
  products: [
    .executable(name: "badminton-server", targets: ["BadmintonServer"]),
    .executable(name: "badminton", targets: ["BadmintonCLI"]),
    .library(name: "BadmintonRPC", targets: ["BadmintonRPC"]),
    .library(name: "BadmintonAPI", targets: ["BadmintonAPI"]),
    .library(name: "BadmintonJSON", targets: ["BadmintonJSON"]),
    .library(name: "BadmintonClient", targets: ["BadmintonClient"]),
    // For the benchmarks package in Benchmarks/, which measures the layers one by one.
    .library(name: "BadmintonDomain", targets: ["BadmintonDomain"]),
    .library(name: "BadmintonStore", targets: ["BadmintonStore"]),
    .library(name: "BadmintonStoreSQL", targets: ["BadmintonStoreSQL"]),
    .library(name: "BadmintonSQLite", targets: ["BadmintonSQLite"]),
    .library(name: "BadmintonProjections", targets: ["BadmintonProjections"]),
    .library(name: "BadmintonServices", targets: ["BadmintonServices"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
    .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    // The operator console: HTTP, TLS and the test client, and its HTML templates. Hummingbird's
    // swift-configuration support is not used, so its trait is left off.
    .package(
      url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1",
      traits: ["FullFoundation"]),
    .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
    .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    // The HTTP parts Hummingbird's channels carry (already in the graph through Hummingbird):
    // the metrics endpoint adds a handler of its own among them.
    .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
    // Tests only: the CA and server certificates of the TLS tests, made at test time.
    .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
    .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
  ],
  targets: [
    // C: the system libraries and the code protoc-c generates from Proto/.
    .systemLibrary(
      name: "CProtobufC",
      pkgConfig: "libprotobuf-c",
      providers: [.apt(["libprotobuf-c-dev"])]
    ),
    .systemLibrary(
      name: "CZstd",
      pkgConfig: "libzstd",
      providers: [.apt(["libzstd-dev"])]
    ),
    // The protocol's messages (Proto/badminton/rpc/v1), which the RPC core is built on.
    .target(
      name: "CBadmintonRPCProto",
      dependencies: ["CProtobufC"],
      linkerSettings: [.linkedLibrary("protobuf-c")]
    ),
    // The product's messages (Proto/badminton/v1).
    .target(
      name: "CBadmintonProto",
      dependencies: ["CBadmintonRPCProto", "CProtobufC"],
      linkerSettings: [.linkedLibrary("protobuf-c")]
    ),

    // The RPC core: frames, envelope, status, zstd, message bridging, server and client. It knows
    // the protocol's messages only; a product brings its own through the codec protocol.
    .target(
      name: "BadmintonRPC",
      dependencies: [
        "CBadmintonRPCProto",
        "CProtobufC",
        "CZstd",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOTLS", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "CoreMetrics", package: "swift-metrics"),
      ],
      swiftSettings: defaultSwiftSettings
    ),

    // The metrics endpoint: Prometheus's text output of the metrics the other targets record
    // through swift-metrics and of the process's own figures, served over Hummingbird.
    .target(
      name: "BadmintonMetrics",
      dependencies: [
        .product(name: "CoreMetrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: defaultSwiftSettings
    ),

    // The API of the BadmintonBuddy services: message types, descriptors, client stubs and the
    // protocols the services implement.
    .target(
      name: "BadmintonAPI",
      dependencies: ["BadmintonRPC", "CBadmintonProto"],
      swiftSettings: defaultSwiftSettings
    ),

    // The client library for the app: one session that logs in, reconnects, resumes the event
    // stream and sends every write exactly once through a durable queue.
    .target(
      name: "BadmintonClient",
      dependencies: ["BadmintonAPI", "BadmintonRPC"],
      swiftSettings: defaultSwiftSettings
    ),

    // The JSON form of every message in Proto/, driven by protoc-c's descriptors.
    .target(
      name: "BadmintonJSON",
      dependencies: ["BadmintonRPC", "CBadmintonRPCProto", "CProtobufC"],
      swiftSettings: defaultSwiftSettings
    ),

    // The domain: the product's rules in pure Swift, no I/O.
    .target(
      name: "BadmintonDomain",
      dependencies: [.product(name: "HeapModule", package: "swift-collections")],
      swiftSettings: defaultSwiftSettings
    ),

    // The store: the services' data behind an interface of our own (the store protocols, their
    // records and the change feed), which imports neither engine.
    .target(
      name: "BadmintonStore",
      dependencies: ["BadmintonDomain"],
      swiftSettings: defaultSwiftSettings
    ),

    // Each store operation, written once over a small engine interface (`StoreSession`): the
    // rows it reads, the domain rule it calls, the rows it writes, the events it appends.
    .target(
      name: "BadmintonStoreSQL",
      dependencies: ["BadmintonDomain", "BadmintonStore"],
      swiftSettings: defaultSwiftSettings
    ),

    // The embedded store: GRDB over SQLite, the default.
    .target(
      name: "BadmintonSQLite",
      dependencies: [
        "BadmintonDomain",
        "BadmintonStore",
        "BadmintonStoreSQL",
        .product(name: "GRDB", package: "GRDB.swift"),
        // SQLite's own column functions, for reading rows as the statement steps.
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ],
      swiftSettings: defaultSwiftSettings
    ),

    // The store on PostgreSQL, for several server instances on one database: the same interface
    // as the embedded store, over postgres-nio.
    .target(
      name: "BadmintonPostgres",
      dependencies: [
        "BadmintonDomain",
        "BadmintonStore",
        "BadmintonStoreSQL",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: defaultSwiftSettings
    ),

    // The in-memory projections of the store's change feed that hot reads are served from: the
    // players, sessions, nearby index, blocks, match board and live event streams.
    .target(
      name: "BadmintonProjections",
      dependencies: ["BadmintonDomain", "BadmintonRPC", "BadmintonStore"],
      swiftSettings: defaultSwiftSettings
    ),

    // The services: the domain, the store and the projections behind the RPC methods.
    .target(
      name: "BadmintonServices",
      dependencies: [
        "BadmintonAPI",
        "BadmintonDomain",
        "BadmintonProjections",
        "BadmintonRPC",
        "BadmintonStore",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "CryptoExtras", package: "swift-crypto"),
        // The recent answers of keyed writes, forgotten oldest first.
        .product(name: "DequeModule", package: "swift-collections"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: defaultSwiftSettings
    ),

    // The operator console: sign-in for administrators and the pages they work in, served as
    // HTML over Hummingbird. It talks to the product through a protocol of its own
    // (`ConsoleBackend`), which the server implements over the services.
    .target(
      name: "BadmintonConsole",
      dependencies: [
        "BadmintonDomain",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "HummingbirdTLS", package: "hummingbird"),
        .product(name: "Mustache", package: "swift-mustache"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      // The pages' templates (Resources/Templates/NAME.mustache) and the stylesheet, copied as
      // they are into BadmintonBuddy_BadmintonConsole.resources/Resources beside the
      // executables; the console reads them once at start (ConsoleResources).
      resources: [.copy("Resources")],
      swiftSettings: defaultSwiftSettings
    ),

    // Executables.
    .executableTarget(
      name: "BadmintonServer",
      dependencies: [
        "BadmintonConsole",
        "BadmintonDomain",
        "BadmintonMetrics",
        "BadmintonProjections",
        "BadmintonRPC",
        "BadmintonPostgres",
        "BadmintonServices",
        "BadmintonSQLite",
        "BadmintonStore",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "CoreMetrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
      ],
      path: "Sources/badminton-server",
      swiftSettings: defaultSwiftSettings,
      linkerSettings: serverLinkerSettings
    ),

    .executableTarget(
      name: "BadmintonCLI",
      dependencies: [
        "BadmintonAPI",
        "BadmintonJSON",
        "BadmintonRPC",
        "CBadmintonRPCProto",
        "CProtobufC",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Sources/badminton",
      swiftSettings: defaultSwiftSettings
    ),

    // Tests.
    // A throwaway PostgreSQL cluster, started by the tests that need one.
    .target(
      name: "PostgresTestCluster",
      path: "Tests/PostgresTestCluster",
      swiftSettings: defaultSwiftSettings
    ),
    // The stores the store and service tests run on (`BADMINTON_TEST_STORES`), each made empty.
    .target(
      name: "StoreTestSupport",
      dependencies: [
        "BadmintonPostgres", "BadmintonSQLite", "BadmintonStore", "PostgresTestCluster",
      ],
      path: "Tests/StoreTestSupport",
      swiftSettings: defaultSwiftSettings
    ),
    .testTarget(
      name: "BadmintonRPCTests",
      dependencies: [
        "BadmintonMetrics",
        "BadmintonRPC",
        "CBadmintonRPCProto",
        "CZstd",
        // A port below the ephemeral range for the retry tests' servers that stop and start.
        "ChaosSupport",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "NIOTestUtils", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "X509", package: "swift-certificates"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "SwiftASN1", package: "swift-asn1"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "PropertyBased", package: "swift-property-based"),
        .product(name: "CoreMetrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ],
      swiftSettings: defaultSwiftSettings
    ),
    .testTarget(
      name: "BadmintonAPITests",
      dependencies: [
        "BadmintonAPI",
        "BadmintonRPC",
        // protoc-c's descriptors, from which the completeness test writes its values.
        "CBadmintonRPCProto",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: defaultSwiftSettings
    ),
    .testTarget(
      name: "BadmintonJSONTests",
      dependencies: [
        "BadmintonAPI",
        "BadmintonJSON",
        "BadmintonRPC",
        "CBadmintonRPCProto",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: defaultSwiftSettings
    ),
    .testTarget(
      name: "BadmintonDomainTests",
      dependencies: [
        "BadmintonDomain",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: defaultSwiftSettings
    ),
    .testTarget(
      name: "BadmintonStoreTests",
      dependencies: [
        "BadmintonDomain",
        "BadmintonPostgres",
        "BadmintonSQLite",
        "BadmintonStore",
        "BadmintonStoreSQL",
        "PostgresTestCluster",
        "StoreTestSupport",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: defaultSwiftSettings
    ),
    .testTarget(
      name: "BadmintonServicesTests",
      dependencies: [
        "BadmintonAPI",
        "BadmintonDomain",
        "BadmintonProjections",
        "BadmintonRPC",
        "BadmintonServices",
        "BadmintonSQLite",
        "BadmintonStore",
        "BadmintonStoreSQL",
        // Several badminton-server processes on one database (MultiInstanceTests), and every
        // service test on each store.
        "BadmintonPostgres",
        "PostgresTestCluster",
        "StoreTestSupport",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: defaultSwiftSettings
    ),
    .testTarget(
      name: "BadmintonConsoleTests",
      dependencies: [
        "BadmintonConsole",
        "BadmintonDomain",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        // The templates' tests build libraries with a template left out.
        .product(name: "Mustache", package: "swift-mustache"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "PropertyBased", package: "swift-property-based"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: defaultSwiftSettings
    ),
    .testTarget(
      name: "BadmintonClientTests",
      dependencies: [
        "BadmintonAPI",
        "BadmintonClient",
        "BadmintonRPC",
        "BadmintonServices",
        "BadmintonSQLite",
        "BadmintonStore",
        // A port below the ephemeral range, which no other test's port 0 takes between a stop
        // and a restart.
        "ChaosSupport",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: defaultSwiftSettings
    ),
    // End to end: `badminton` against `badminton-server`, both run as subprocesses from the
    // build folder (`swift build --build-tests` builds every product next to the test bundle).
    .testTarget(
      name: "BadmintonCLITests",
      dependencies: [
        "BadmintonAPI",
        "BadmintonJSON",
        "BadmintonRPC",
        "CBadmintonRPCProto",
      ],
      swiftSettings: defaultSwiftSettings
    ),
    // The fault-injecting TCP proxy of the chaos test.
    .target(
      name: "ChaosSupport",
      dependencies: [
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ],
      path: "Tests/ChaosSupport",
      swiftSettings: defaultSwiftSettings
    ),
    // Client sessions through that proxy against `badminton-server` processes that are killed
    // and restarted (issue 27), and the proxy's own tests.
    .testTarget(
      name: "BadmintonChaosTests",
      dependencies: [
        "BadmintonAPI",
        "BadmintonClient",
        "BadmintonRPC",
        "ChaosSupport",
        "PostgresTestCluster",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ],
      swiftSettings: defaultSwiftSettings
    ),
  ]
)
