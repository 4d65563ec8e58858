import SwiftProtobufPluginLibrary

/// What the generator refuses before writing anything: input whose C names it would get wrong, or
/// whose meaning it does not bridge. Within these rules its names are protoc-c's exactly.
enum Validation {
  /// C++'s reserved words, which protoc-c follows with `_` in a member name.
  private static let cxxKeywords: Set<String> = [
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "class", "compl", "const", "constexpr", "const_cast", "continue",
    "decltype", "default", "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit",
    "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int", "long",
    "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
    "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "return", "short",
    "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template",
    "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union",
    "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
  ]

  /// Names the generated Swift declares on every message.
  private static let reservedProperties: Set<String> = [
    "cDescriptor", "fullName", "serializedSize", "serializedBytes", "cMessage",
  ]

  /// `PlayerCard`, `V1`: capitalized words, never two capitals in a row.
  private static func isTypeName(_ name: String) -> Bool {
    name.wholeMatch(of: /([A-Z][a-z0-9]+)+/) != nil
  }

  /// `user_id`: lower case words joined by single underscores.
  private static func isFieldName(_ name: String) -> Bool {
    name.wholeMatch(of: /[a-z][a-z0-9]*(_[a-z0-9]+)*/) != nil
  }

  /// Refuses `files` (all of the generated packages) when anything in them falls outside what
  /// the generator bridges.
  static func check(_ files: [FileDescriptor]) throws {
    let packages = Set(files.map(\.package))
    var typeNames: [String: String] = [:]
    func fail(_ text: String) -> CodegenError { CodegenError(description: text) }
    for file in files {
      guard file.syntax == .proto3 else {
        throw fail("\(file.name): only proto3 is generated (protoc-c's proto2 fields need has_)")
      }
      for part in file.package.split(separator: ".")
      where part.wholeMatch(of: /[a-z][a-z0-9]*/) == nil {
        throw fail("\(file.name): package part \(part) is not lower case letters and digits")
      }
      let types =
        file.messages.map { ($0.name, $0.fullName) } + file.enums.map { ($0.name, $0.fullName) }
      for (name, fullName) in types {
        guard isTypeName(name) else {
          throw fail("\(fullName): a type name is capitalized words, never two capitals in a row")
        }
        if let other = typeNames.updateValue(fullName, forKey: name) {
          throw fail("\(fullName) and \(other) would be the same Swift type")
        }
      }
      for enumType in file.enums {
        let cases = enumType.swiftCaseNames
        if let prefix = enumType.options.getExtensionValue(ext: valuePrefixOption),
          !enumType.values.contains(where: { $0.name.hasPrefix(prefix) })
        {
          throw fail("\(enumType.fullName): no value has its value_prefix \(prefix)")
        }
        guard Set(cases).count == cases.count else {
          throw fail("\(enumType.fullName): two values have the same Swift name in \(cases)")
        }
      }
      for message in file.messages {
        for oneof in message.realOneofs where !isFieldName(oneof.name) {
          throw fail("\(oneof.fullName): a oneof name is lower case words joined by _")
        }
        for field in message.fields {
          guard isFieldName(field.name), !cxxKeywords.contains(field.name) else {
            throw fail(
              "\(field.fullName): a field name is lower case words joined by _, not a C++ keyword")
          }
          guard !reservedProperties.contains(field.swiftName) else {
            throw fail("\(field.fullName): \(field.swiftName) is a member every message has")
          }
          guard field.proto.proto3Optional == false else {
            throw fail(
              "\(field.fullName): proto3 optional is not bridged (protoc-c 1.4 refuses it)")
          }
          if field.isAlwaysPresent,
            field.type != .message || field.isRepeated || field.realContainingOneof != nil
          {
            throw fail(
              "\(field.fullName): always_present is for singular message fields outside a oneof")
          }
          let referenced =
            field.type == .message
            ? field.messageType.file.package
            : field.type == .enum ? field.enumType.file.package : nil
          if let referenced, !packages.contains(referenced) {
            throw fail("\(field.fullName): its type's package \(referenced) is not generated")
          }
        }
      }
    }
  }
}
