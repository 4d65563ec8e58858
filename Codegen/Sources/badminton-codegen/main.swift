import Foundation
import SwiftProtobuf
import SwiftProtobufPluginLibrary

/// `badminton-codegen --descriptor-set FILE --module PACKAGE=SwiftModule:CModule:Registry:DIR ...
/// --test-generators PACKAGES=FILE[:round-trip] ...`: writes the Swift message layer of every
/// module, and the test generators of the packages named (with a round-trip case per message
/// when `:round-trip` follows), from the descriptor set protoc wrote with `--include_source_info`.
func run(_ arguments: [String]) throws {
  var descriptorSet: String?
  var modules: [ModuleTarget] = []
  var testGenerators: [(packages: [String], file: String, roundTripCases: Bool)] = []
  var iterator = arguments.makeIterator()
  while let argument = iterator.next() {
    guard let value = iterator.next() else {
      throw CodegenError(description: "\(argument) needs a value")
    }
    switch argument {
    case "--descriptor-set": descriptorSet = value
    case "--module": modules.append(try ModuleTarget(argument: value))
    case "--test-generators":
      // PACKAGE[,PACKAGE...]=FILE[:round-trip]
      let halves = value.split(separator: "=", maxSplits: 1).map(String.init)
      guard halves.count == 2 else {
        throw CodegenError(description: "--test-generators takes PACKAGES=FILE[:round-trip]")
      }
      let roundTrip = halves[1].hasSuffix(":round-trip")
      let file = roundTrip ? String(halves[1].dropLast(":round-trip".count)) : halves[1]
      testGenerators.append(
        (halves[0].split(separator: ",").map(String.init), file, roundTrip))
    default: throw CodegenError(description: "unknown argument \(argument)")
    }
  }
  guard let descriptorSet, !modules.isEmpty else {
    throw CodegenError(
      description:
        "usage: badminton-codegen --descriptor-set FILE --module PACKAGE=SwiftModule:CModule:Registry:DIR"
        + " ... [--test-generators PACKAGE[,PACKAGE...]=FILE[:round-trip] ...]")
  }

  let data = try Data(contentsOf: URL(fileURLWithPath: descriptorSet))
  let proto = try Google_Protobuf_FileDescriptorSet(
    serializedBytes: data, extensions: SimpleExtensionMap([alwaysPresentOption, valuePrefixOption]))
  let set = DescriptorSet(proto: proto)

  // Every file of a generated package; options.proto declares extensions only.
  let packages = Set(modules.map(\.protoPackage))
  let all = set.files.filter { packages.contains($0.package) }
  try Validation.check(all)
  var generated: [FileDescriptor] = []
  for module in modules {
    let files = all.filter {
      $0.package == module.protoPackage
        && !($0.messages.isEmpty && $0.enums.isEmpty && $0.services.isEmpty)
    }
    try FileManager.default.createDirectory(
      atPath: module.directory, withIntermediateDirectories: true)
    for file in files {
      let stem = URL(fileURLWithPath: file.name).deletingPathExtension().lastPathComponent
      try write(try MessageFile(file: file, module: module).render(), to: module.directory, stem)
    }
    let registry = RegistryFile(files: files, module: module).render()
    try write(registry, to: module.directory, module.registry)
    generated += files
  }
  for output in testGenerators {
    let files = generated.filter { output.packages.contains($0.package) }
    let imports =
      ["PropertyBased"]
      + modules.filter { output.packages.contains($0.protoPackage) }.map(\.swiftModule)
    let text = try TestGeneratorFile(
      files: files, imports: imports, roundTripCases: output.roundTripCases
    ).render()
    try text.write(toFile: output.file, atomically: true, encoding: .utf8)
  }
}

private func write(_ text: String, to directory: String, _ stem: String) throws {
  try text.write(toFile: "\(directory)/\(stem).pb.swift", atomically: true, encoding: .utf8)
}

do {
  try run(Array(CommandLine.arguments.dropFirst()))
} catch {
  FileHandle.standardError.write(Data("badminton-codegen: \(error)\n".utf8))
  exit(1)
}
