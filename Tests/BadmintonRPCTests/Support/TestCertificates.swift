import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate authority made at test time, and the server certificates it signs, written as
/// PEM files in a temporary folder of their own.
struct TestCertificateAuthority {
  /// The folder the PEM files are written to; `remove()` deletes it.
  let folder: URL
  private let key: P256.Signing.PrivateKey
  private let name: DistinguishedName
  /// The CA's own certificate, as a PEM file: what a client trusts.
  let certificateFile: String

  /// A new self-signed CA called `commonName`.
  init(commonName: String = "BadmintonBuddy Test CA") throws {
    folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("badminton-tls-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    key = P256.Signing.PrivateKey()
    name = try DistinguishedName { CommonName(commonName) }
    let now = Date()
    let certificate = try Certificate(
      version: .v3, serialNumber: Certificate.SerialNumber(),
      publicKey: Certificate.PublicKey(key.publicKey),
      notValidBefore: now - 3600, notValidAfter: now + 24 * 3600,
      issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
      extensions: try Certificate.Extensions {
        Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
        Critical(KeyUsage(keyCertSign: true, cRLSign: true))
      },
      issuerPrivateKey: Certificate.PrivateKey(key))
    certificateFile = folder.appendingPathComponent("ca.pem").path
    try certificate.serializeAsPEM().pemString.write(
      toFile: certificateFile, atomically: true, encoding: .utf8)
  }

  /// A server certificate for `dnsNames` and `ipAddresses` (IPv4 only), signed by this CA: the
  /// chain file (the certificate, then the CA's) and the key file.
  func issueServerCertificate(
    named file: String = "server", dnsNames: [String] = ["localhost"],
    ipAddresses: [[UInt8]] = [[127, 0, 0, 1]]
  ) throws -> (chain: String, key: String) {
    let serverKey = P256.Signing.PrivateKey()
    let now = Date()
    let names =
      dnsNames.map { GeneralName.dnsName($0) }
      + ipAddresses.map { GeneralName.ipAddress(ASN1OctetString(contentBytes: $0[...])) }
    let certificate = try Certificate(
      version: .v3, serialNumber: Certificate.SerialNumber(),
      publicKey: Certificate.PublicKey(serverKey.publicKey),
      notValidBefore: now - 3600, notValidAfter: now + 24 * 3600,
      issuer: name, subject: try DistinguishedName { CommonName(dnsNames.first ?? "server") },
      signatureAlgorithm: .ecdsaWithSHA256,
      extensions: try Certificate.Extensions {
        Critical(BasicConstraints.notCertificateAuthority)
        Critical(KeyUsage(digitalSignature: true))
        try ExtendedKeyUsage([.serverAuth])
        SubjectAlternativeNames(names)
      },
      issuerPrivateKey: Certificate.PrivateKey(key))
    let chain = folder.appendingPathComponent("\(file)-chain.pem").path
    let keyFile = folder.appendingPathComponent("\(file)-key.pem").path
    let caPEM = try String(contentsOfFile: certificateFile, encoding: .utf8)
    try (certificate.serializeAsPEM().pemString + "\n" + caPEM).write(
      toFile: chain, atomically: true, encoding: .utf8)
    try serverKey.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
    return (chain, keyFile)
  }

  /// Writes `text` to a file of this folder and returns its path.
  func write(_ text: String, to file: String) throws -> String {
    let path = folder.appendingPathComponent(file).path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// Deletes the folder and every file in it.
  func remove() {
    try? FileManager.default.removeItem(at: folder)
  }
}
