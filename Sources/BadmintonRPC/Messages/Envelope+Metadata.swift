extension Envelope {
  /// The field number of `metadata` in the encoding.
  static let metadataFieldNumber: UInt64 = 5

  /// The value of metadata `key`, the first when there are several.
  public func metadataValue(_ key: String) -> String? {
    metadata.first { $0.key == key }?.value
  }
}
