// swift-tools-version:6.1
import PackageDescription

/// The benchmarks: a package of its own, so that building and testing the project never builds
/// it or its peers (grpc-swift 2, swift-protobuf, package-benchmark).
let swiftSettings: [SwiftSetting] = [
  .swiftLanguageMode(.v6),
  .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
  name: "BadmintonBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "BadmintonBuddy", path: ".."),
    .package(
      url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
    .package(url: "https://github.com/grpc/grpc-swift-2.git", from: "2.4.3"),
    .package(url: "https://github.com/grpc/grpc-swift-nio-transport.git", from: "2.9.2"),
    .package(url: "https://github.com/grpc/grpc-swift-protobuf.git", from: "2.4.1"),
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
  ],
  targets: [
    // zstd with its dictionary trainer (zdict.h), for the dictionary figures.
    .systemLibrary(name: "CZstdBench", pkgConfig: "libzstd"),
    // glibc's count of the bytes malloc has handed out.
    .target(name: "CHeapInfo"),

    // The peer: swift-protobuf and grpc-swift 2 code generated once from Proto/ (see
    // Codegen/generate-peer.sh) and a grpc-swift 2 server and client around it.
    .target(
      name: "GRPCPeer",
      dependencies: [
        .product(name: "GRPCCore", package: "grpc-swift-2"),
        .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport"),
        .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
        .product(name: "SwiftProtobuf", package: "swift-protobuf"),
      ],
      swiftSettings: swiftSettings
    ),

    // What the benchmarks share: the synthetic players and their availability, resident
    // memory, percentiles, and the servers the RPC figures are taken against.
    .target(
      name: "BenchmarkWorkloads",
      dependencies: [
        "CHeapInfo",
        .product(name: "BadmintonAPI", package: "BadmintonBuddy"),
        .product(name: "BadmintonDomain", package: "BadmintonBuddy"),
        .product(name: "BadmintonProjections", package: "BadmintonBuddy"),
        .product(name: "BadmintonRPC", package: "BadmintonBuddy"),
        .product(name: "BadmintonServices", package: "BadmintonBuddy"),
        .product(name: "BadmintonStore", package: "BadmintonBuddy"),
        .product(name: "BadmintonSQLite", package: "BadmintonBuddy"),
        .product(name: "BadmintonStoreSQL", package: "BadmintonBuddy"),
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ],
      swiftSettings: swiftSettings
    ),

    // The budget report: every figure of docs/benchmarks.md beside its budget.
    .executableTarget(
      name: "badminton-bench",
      dependencies: [
        "BenchmarkWorkloads",
        "GRPCPeer",
        "CZstdBench",
        .product(name: "BadmintonAPI", package: "BadmintonBuddy"),
        .product(name: "BadmintonDomain", package: "BadmintonBuddy"),
        .product(name: "BadmintonProjections", package: "BadmintonBuddy"),
        .product(name: "BadmintonRPC", package: "BadmintonBuddy"),
        .product(name: "SwiftProtobuf", package: "swift-protobuf"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: swiftSettings
    ),

    // package-benchmark suites, with the thresholds `benchmark thresholds check` holds them to.
    .executableTarget(
      name: "MatchingBenchmarks",
      dependencies: [
        "BenchmarkWorkloads",
        .product(name: "BadmintonDomain", package: "BadmintonBuddy"),
        .product(name: "BadmintonProjections", package: "BadmintonBuddy"),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/MatchingBenchmarks",
      swiftSettings: swiftSettings,
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
  ]
)
