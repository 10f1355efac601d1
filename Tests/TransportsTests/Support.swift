import Foundation
import KeelConcurrency
import Networking

/// An endpoint given whole: base URL, path and headers, for requests a test makes by hand.
struct Route: Endpoint {
  var baseURL: URL
  var path: EndpointPath
  var method: Networking.HTTPMethod = .get
  var headers: [String: String] = [:]
}

/// A count that tasks increment and the test reads.
final class Counter: Sendable {
  private let count = Locked(0)
  func increment() { count.withLock { $0 += 1 } }
  var value: Int { count.withLock { $0 } }
}

/// A directory of the test's own, removed with this object.
final class TemporaryDirectory {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("keel-nio-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }
}
