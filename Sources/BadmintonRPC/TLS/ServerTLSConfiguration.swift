import Logging
import NIOCore
public import NIOSSL

#if canImport(Glibc)
  import Glibc
#endif

/// The server's TLS: its certificate chain and private key, loaded and checked once at start.
/// TLS sits under the frames: every connection's bytes are TLS records and nothing above the
/// frames changes. A connection that does not finish its handshake within `handshakeTimeout`
/// is closed; one that speaks plain frames instead gets GOAWAY (`TLS_REQUIRED`) in plain text.
public struct ServerTLSConfiguration: Sendable {
  /// The PEM file of the certificate chain, the server's own certificate first.
  public let certificateChainFile: String
  /// The PEM file of the private key of the chain's first certificate.
  public let privateKeyFile: String
  /// How long a new connection may take to complete its TLS handshake. Default 10 seconds.
  public var handshakeTimeout: Duration
  /// The context every connection's TLS handler is made from.
  let context: NIOSSLContext
  /// The chain, key and versions the context was made of: what another listener of the server
  /// (the operator console) serves TLS with.
  public let configuration: TLSConfiguration

  /// The default of `handshakeTimeout`: 10 seconds, several round trips on a slow mobile link.
  public static let defaultHandshakeTimeout: Duration = .seconds(10)

  /// Loads the chain and key from PEM files and checks that the key belongs to the chain's
  /// first certificate; throws an error that names the file at fault.
  public init(
    certificateChainFile: String, privateKeyFile: String,
    handshakeTimeout: Duration = ServerTLSConfiguration.defaultHandshakeTimeout
  ) throws(TLSFileError) {
    self.certificateChainFile = certificateChainFile
    self.privateKeyFile = privateKeyFile
    self.handshakeTimeout = handshakeTimeout
    let chainBytes = try TLSFileError.read(certificateChainFile, what: "certificate chain")
    let chain: [NIOSSLCertificate]
    do {
      chain = try NIOSSLCertificate.fromPEMBytes(chainBytes)
    } catch {
      throw TLSFileError(
        file: certificateChainFile, problem: "is not a PEM certificate chain (\(error))")
    }
    guard !chain.isEmpty else {
      throw TLSFileError(file: certificateChainFile, problem: "holds no PEM certificate")
    }
    let keyBytes = try TLSFileError.read(privateKeyFile, what: "private key")
    let key: NIOSSLPrivateKey
    do {
      key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem)
    } catch {
      throw TLSFileError(file: privateKeyFile, problem: "is not a PEM private key (\(error))")
    }
    var configuration = TLSConfiguration.makeServerConfiguration(
      certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    configuration.minimumTLSVersion = .tlsv12
    self.configuration = configuration
    do {
      context = try NIOSSLContext(configuration: configuration)
    } catch {
      throw TLSFileError(
        file: privateKeyFile,
        problem: "does not match the first certificate of \(certificateChainFile) (\(error))")
    }
  }

  /// The handlers that put TLS under a new connection's frame codec, in pipeline order.
  func makeHandlers(logger: Logger) -> [any ChannelHandler] {
    let gate = TLSGateHandler(timeout: TimeAmount(handshakeTimeout), logger: logger)
    return [
      gate,
      NIOSSLServerHandler(context: context),
      ServerTLSHandshakeHandler(gate: gate, logger: logger),
    ]
  }
}

/// A TLS certificate, key or CA file that cannot be used: which file, and why.
public struct TLSFileError: Error, CustomStringConvertible, Sendable {
  /// The path of the file at fault.
  public var file: String
  /// What is wrong with it, as a sentence's predicate ("cannot be read: ...").
  public var problem: String

  /// An error about `file`.
  public init(file: String, problem: String) {
    self.file = file
    self.problem = problem
  }

  /// "FILE PROBLEM", for a start-up error message.
  public var description: String { "\(file) \(problem)" }

  /// The whole content of the file at `path`; at most 1 MiB, as no certificate file is larger.
  static func read(_ path: String, what: String) throws(TLSFileError) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw TLSFileError(
        file: path, problem: "(the \(what)) cannot be read: \(String(cString: strerror(errno)))")
    }
    defer { close(descriptor) }
    let limit = 1 << 20
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw TLSFileError(
          file: path, problem: "(the \(what)) cannot be read: \(String(cString: strerror(errno)))")
      }
      if count == 0 { break }
      bytes += chunk[..<count]
      guard bytes.count <= limit else {
        throw TLSFileError(file: path, problem: "(the \(what)) is over 1 MiB: not a PEM file")
      }
    }
    return bytes
  }
}
