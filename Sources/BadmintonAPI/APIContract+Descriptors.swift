public import BadmintonRPC

extension APIContract {
  /// protoc-c's descriptor of every message of the product and of the protocol, by full name, for
  /// code that works from a name (the command line, the JSON form).
  public static let descriptorsByName: [String: CMessageDescriptor] = Dictionary(
    uniqueKeysWithValues: (RPCContract.messageTypes + messageTypes).map {
      ($0.fullName, $0.cDescriptor)
    })
}
