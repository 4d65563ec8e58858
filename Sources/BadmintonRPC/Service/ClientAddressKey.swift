#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The key per-address limits count a client under: an IPv4 address as it is (an IPv4 address
/// mapped into IPv6 as its IPv4 form), an IPv6 address by its /64 prefix, because one
/// subscriber usually holds a whole /64 and could otherwise pick a new address per attempt.
/// The server's per-address connection cap and the services' per-address limits both use it.
public func clientAddressKey(_ peerAddress: String) -> String {
  var bytes = [UInt8](repeating: 0, count: 16)
  guard peerAddress.contains(":"), inet_pton(AF_INET6, peerAddress, &bytes) == 1 else {
    return peerAddress
  }
  if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
    return bytes[12...].map { String($0) }.joined(separator: ".")
  }
  let groups = stride(from: 0, to: 8, by: 2).map {
    String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
  }
  return groups.joined(separator: ":") + "::/64"
}
