import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The helper that starts a PostgreSQL cluster for the tests and keel-bench: a port another process took between
/// choosing it and starting the server costs a retry on the next port, never the run, and a cluster that cannot start
/// leaves no directory behind.
@Suite("The tests' PostgreSQL helper", .serialized, .timeLimit(.minutes(3)))
struct LocalPostgresTests {
  @Test("A taken port is passed over for the next one")
  func takenPort() async throws {
    let taken = try Listener()
    // Three ports free a moment ago: under the whole suite another test's connection can be given a freed port as
    // its own before the server binds it (a run failed so with one), which is the case the helper retries for.
    let free = try (0..<3).map { _ in try Listener.freePort() }
    let directory = Self.directory()
    let ports = [taken.port] + free
    let cluster = try await onOwnThread { try LocalPostgres.Cluster.start(ports: ports, directory: directory) }
    withExtendedLifetime(taken) {}  // the port stays taken until the cluster has started
    defer { cluster.stop() }
    let started = free.map { "postgres://postgres@127.0.0.1:\($0)/postgres?sslmode=disable" }
    #expect(started.contains(cluster.url), "\(cluster.url) is not on one of \(free)")
    await onOwnThread { cluster.stop() }
    #expect(!FileManager.default.fileExists(atPath: directory.path), "stopping removes the cluster's directory")
  }

  @Test("When every port is taken, the error says so and nothing is left behind")
  func everyPortTaken() async throws {
    let taken = try Listener()
    let directory = Self.directory()
    let ports = [taken.port, taken.port]
    await #expect(throws: LocalPostgres.Unavailable.self) {
      try await onOwnThread { try LocalPostgres.Cluster.start(ports: ports, directory: directory) }
    }
    withExtendedLifetime(taken) {}  // the port stays taken until the start has failed
    #expect(!FileManager.default.fileExists(atPath: directory.path))
  }

  private static func directory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("keel-postgres-test-\(UUID().uuidString)")
  }
}

/// A socket listening on 127.0.0.1, holding its port for as long as it lives.
private final class Listener {
  let descriptor: Int32
  let port: Int

  init() throws {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(socket, 1) == 0 else {
      close(socket)
      throw POSIXError(.EADDRINUSE)
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
    }
    descriptor = socket
    port = Int(UInt16(bigEndian: address.sin_port))
  }

  deinit { close(descriptor) }

  /// A port free a moment ago: one a listener had and gave back.
  static func freePort() throws -> Int { try Listener().port }
}
