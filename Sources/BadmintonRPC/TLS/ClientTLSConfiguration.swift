import NIOCore
import NIOSSL

/// How a client connects with TLS and verifies the server: its certificate must chain to the
/// system's trust store, or to the certificates of a CA file, and be valid for the host the
/// client connects to (its DNS name, sent as SNI, or its IP address).
public struct ClientTLSConfiguration: Sendable {
  /// The PEM file of the certificate authorities to trust instead of the system's; nil = the
  /// system's trust store.
  public let caFile: String?
  /// The context every connection's TLS handler is made from.
  let context: NIOSSLContext

  /// Trusts the system's trust store, or only the certificates in the PEM file `caFile`;
  /// throws an error that names the file when it cannot be used.
  public init(caFile: String? = nil) throws(TLSFileError) {
    self.caFile = caFile
    var configuration = TLSConfiguration.makeClientConfiguration()
    configuration.minimumTLSVersion = .tlsv12
    if let caFile {
      let bytes = try TLSFileError.read(caFile, what: "CA certificates")
      let certificates: [NIOSSLCertificate]
      do {
        certificates = try NIOSSLCertificate.fromPEMBytes(bytes)
      } catch {
        throw TLSFileError(file: caFile, problem: "is not a PEM certificate file (\(error))")
      }
      guard !certificates.isEmpty else {
        throw TLSFileError(file: caFile, problem: "holds no PEM certificate")
      }
      configuration.trustRoots = .certificates(certificates)
    }
    do {
      context = try NIOSSLContext(configuration: configuration)
    } catch {
      throw TLSFileError(
        file: caFile ?? "the system trust store", problem: "cannot be used (\(error))")
    }
  }

  /// The handlers that put TLS under a new connection's frame codec, in pipeline order: the
  /// server name is `host` (sent as SNI unless it is an IP address, and checked against the
  /// certificate either way); `completed` is completed when the handshake ends.
  func makeHandlers(
    host: String, port: Int, timeout: Duration, completed: EventLoopPromise<Void>
  ) throws -> [any ChannelHandler] {
    let serverName = Self.isIPAddress(host) ? nil : host
    return [
      try NIOSSLClientHandler(context: context, serverHostname: serverName),
      ClientTLSHandshakeHandler(
        promise: completed, host: host, port: port, timeout: TimeAmount(timeout)),
    ]
  }

  /// Whether `host` is an IPv4 or IPv6 address rather than a name.
  static func isIPAddress(_ host: String) -> Bool {
    (try? SocketAddress(ipAddress: host, port: 0)) != nil
  }
}
