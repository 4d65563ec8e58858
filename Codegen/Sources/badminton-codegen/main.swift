import Foundation
import SwiftProtobuf
import SwiftProtobufPluginLibrary

/// `badminton-codegen --descriptor-set FILE --module PACKAGE=SwiftModule:CModule:Registry:DIR ...
/// --test-generators FILE`: writes the Swift message layer of every module, and the test
/// generators, from the descriptor set protoc wrote with `--include_source_info`.
func run(_ arguments: [String]) throws {
  var descriptorSet: String?
  var modules: [ModuleTarget] = []
  var testGenerators: String?
  var iterator = arguments.makeIterator()
  while let argument = iterator.next() {
    guard let value = iterator.next() else {
      throw CodegenError(description: "\(argument) needs a value")
    }
    switch argument {
    case "--descriptor-set": descriptorSet = value
    case "--module": modules.append(try ModuleTarget(argument: value))
    case "--test-generators": testGenerators = value
    default: throw CodegenError(description: "unknown argument \(argument)")
    }
  }
  guard let descriptorSet, !modules.isEmpty else {
    throw CodegenError(
      description:
        "usage: badminton-codegen --descriptor-set FILE --module PACKAGE=SwiftModule:CModule:Registry:DIR"
        + " ... [--test-generators FILE]")
  }

  let data = try Data(contentsOf: URL(fileURLWithPath: descriptorSet))
  let proto = try Google_Protobuf_FileDescriptorSet(
    serializedBytes: data, extensions: SimpleExtensionMap([alwaysPresentOption]))
  let set = DescriptorSet(proto: proto)

  var generated: [FileDescriptor] = []
  for module in modules {
    let files = set.files.filter { $0.package == module.protoPackage && !$0.messages.isEmpty }
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
  if let testGenerators {
    let imports = ["PropertyBased"] + modules.map(\.swiftModule)
    let text = try TestGeneratorFile(files: generated, imports: imports).render()
    try text.write(toFile: testGenerators, atomically: true, encoding: .utf8)
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
