import Foundation
import PostgresTestCluster
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("The tests' PostgreSQL cluster")
struct PostgresTestClusterTests {
  /// A listening socket on loopback that is not close-on-exec, as SwiftNIO's are not; its
  /// descriptor and the name `/proc` gives it (`socket:[inode]`).
  static func openListener() throws -> (descriptor: Int32, name: String) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(descriptor >= 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    try #require(bound == 0)
    try #require(listen(descriptor, 16) == 0)
    let name = try FileManager.default.destinationOfSymbolicLink(
      atPath: "/proc/self/fd/\(descriptor)")
    try #require(name.hasPrefix("socket:["))
    return (descriptor, name)
  }

  /// What the descriptors of process `pid` are (`/proc/PID/fd`'s links).
  static func descriptorNames(of pid: String) throws -> [String] {
    let folder = "/proc/\(pid)/fd"
    return try FileManager.default.contentsOfDirectory(atPath: folder).compactMap {
      try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0)
    }
  }

  @Test(
    "a program the cluster runs, and the server it starts, get none of the test process's sockets"
  )
  func programs_inheritNoSocket() throws {
    let (descriptor, name) = try Self.openListener()
    defer { close(descriptor) }

    // A program run to its end: its own descriptors, as it lists them.
    let listed = try PostgresTestCluster.runToEnd("/bin/ls", ["-l", "/proc/self/fd"])
    #expect(listed.contains("/proc/"))
    #expect(!listed.contains(name))

    // A server started after the socket was opened, which lives on after `pg_ctl` returns.
    let cluster = try PostgresTestCluster.makePrivate()
    defer { cluster.remove() }
    let pidFile = try String(
      contentsOfFile: cluster.folder + "/data/postmaster.pid", encoding: .utf8)
    let pid = try #require(pidFile.split(separator: "\n").first.map(String.init))
    let names = try Self.descriptorNames(of: pid)
    #expect(!names.isEmpty)
    #expect(!names.contains(name))
  }
}
