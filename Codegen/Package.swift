// swift-tools-version:6.1
import PackageDescription

// The generator of the Swift message layer: reads the descriptor set protoc writes for Proto/
// (`protoc --include_source_info --descriptor_set_out`) and writes every Swift message, enum and
// oneof with its protoc-c bridging, the message registries and the test generators.
// `Codegen/generate.sh` builds and runs it; a package of its own, so that building the product
// never builds swift-protobuf.
let package = Package(
  name: "BadmintonCodegen",
  dependencies: [
    .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0")
  ],
  targets: [
    .executableTarget(
      name: "badminton-codegen",
      dependencies: [
        .product(name: "SwiftProtobuf", package: "swift-protobuf"),
        .product(name: "SwiftProtobufPluginLibrary", package: "swift-protobuf"),
      ],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    // The generator's names against protoc-c's own, and what it refuses.
    .testTarget(
      name: "BadmintonCodegenTests",
      dependencies: [
        "badminton-codegen",
        .product(name: "SwiftProtobuf", package: "swift-protobuf"),
        .product(name: "SwiftProtobufPluginLibrary", package: "swift-protobuf"),
      ],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
  ]
)
