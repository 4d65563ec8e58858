import Foundation
import Mustache

/// The console's templates and stylesheet, read once at start from the target's resource folder
/// (`Sources/BadmintonConsole/Resources`, copied whole by SwiftPM into the resource bundle
/// `BadmintonBuddy_BadmintonConsole.resources/Resources` beside the executables it builds).
struct ConsoleResources: Sendable {
  /// The resource bundle's folder name, as SwiftPM names it: package, then target.
  static let bundleName = "BadmintonBuddy_BadmintonConsole.resources"

  /// The templates, one per `PageTemplate`, compiled.
  let library: MustacheLibrary
  /// The stylesheet, served at `/console.css`.
  let stylesheet: String

  /// Where the resource bundle is looked for, in order, as SwiftPM's `Bundle.module` looks:
  /// beside the executable, then in the package's build folder (`.build/debug` or
  /// `.build/release`). Not through `Bundle.module`, which stops the process when neither has it.
  static func bundleCandidates() -> [String] {
    let beside = Bundle.main.bundleURL.appendingPathComponent(bundleName).path
    // This file is Sources/BadmintonConsole/Pages/ConsoleResources.swift in the package.
    let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    #if DEBUG
      let configuration = "debug"
    #else
      let configuration = "release"
    #endif
    let built = package.appendingPathComponent(".build").appendingPathComponent(configuration)
      .appendingPathComponent(bundleName).path
    return beside == built ? [beside] : [beside, built]
  }

  /// The resource folder inside the first of `candidates` (bundle folders) that has one.
  static func locate(in candidates: [String] = bundleCandidates()) throws(ConsoleResourceError)
    -> String
  {
    for bundle in candidates {
      let folder = (bundle as NSString).appendingPathComponent("Resources")
      var isFolder: ObjCBool = false
      let exists = FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder)
      if exists && isFolder.boolValue { return folder }
    }
    throw ConsoleResourceError(
      "the console's templates were not found: there is no folder \(bundleName)/Resources at "
        + candidates.joined(separator: " or ")
        + ". The folder \(bundleName) comes from the build folder and must stay beside the "
        + "badminton-server executable when it is copied.")
  }

  /// Every template and the stylesheet of the resource folder `folder` (see `locate`). Throws
  /// when a template does not parse, when any `PageTemplate` has no file, or when the
  /// stylesheet cannot be read.
  static func load(from folder: String) async throws(ConsoleResourceError) -> ConsoleResources {
    let templates = (folder as NSString).appendingPathComponent("Templates")
    let library: MustacheLibrary
    do {
      library = try await MustacheLibrary(directory: templates)
    } catch let error as MustacheLibrary.ParserError {
      throw ConsoleResourceError(
        "the console's template \(templates)/\(error.filename) does not parse: \(error.error) "
          + "at line \(error.context.lineNumber), column \(error.context.columnNumber)")
    } catch {
      throw ConsoleResourceError("the console's templates in \(templates) cannot be read: \(error)")
    }
    let missing = PageTemplate.allCases.filter { library.getTemplate(named: $0.rawValue) == nil }
    guard missing.isEmpty else {
      throw ConsoleResourceError(
        "the console's templates are incomplete: \(templates) has no "
          + missing.map(\.fileName).joined(separator: ", "))
    }
    let path = (folder as NSString).appendingPathComponent("console.css")
    guard let data = FileManager.default.contents(atPath: path),
      let stylesheet = String(data: data, encoding: .utf8)
    else {
      throw ConsoleResourceError("the console's stylesheet \(path) cannot be read")
    }
    return ConsoleResources(library: library, stylesheet: stylesheet)
  }

  /// The resources of the first place `bundleCandidates` names that has them.
  static func load() async throws(ConsoleResourceError) -> ConsoleResources {
    try await load(from: locate())
  }
}

/// The console's templates or stylesheet are missing or broken: the console does not start.
struct ConsoleResourceError: Error, CustomStringConvertible {
  /// What is wrong, naming the paths looked at.
  var message: String

  init(_ message: String) {
    self.message = message
  }

  var description: String { message }
}
