// swift-tools-version:6.1
import PackageDescription

/// The fuzz target: a package of its own, so that the project's build never compiles it and its
/// instrumented build (`-sanitize=fuzzer,address`) stays in this folder's own `.build`.
/// `scripts/fuzz` builds and runs it; docs/fuzzing.md says what it covers.
let package = Package(
  name: "BadmintonFuzz",
  dependencies: [
    .package(name: "BadmintonBuddy", path: ".."),
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
  ],
  targets: [
    // libFuzzer's entry points (`LLVMFuzzerTestOneInput`); libFuzzer brings `main`.
    .executableTarget(
      name: "BadmintonFuzz",
      dependencies: [
        .product(name: "BadmintonRPC", package: "BadmintonBuddy"),
        .product(name: "BadmintonAPI", package: "BadmintonBuddy"),
        .product(name: "BadmintonJSON", package: "BadmintonBuddy"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])]
    )
  ]
)
