import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The image loader an app writes without Keel: a lock-guarded `[URL: Data]` in memory, and a plain
/// `URLSession.data(from:)` on a miss. No disk level, no freshness, no eviction, no coalescing: concurrent misses of
/// one URL each fetch it.
final class NaiveImageLoader: Sendable {
  private let images = Mutex<[URL: Data]>([:])
  private let session: URLSession

  init(session: URLSession) {
    self.session = session
  }

  /// Keeps `data` for `url`, as a completed load would.
  func store(_ data: Data, for url: URL) {
    images.withLock { $0[url] = data }
  }

  /// The image at `url`: from the dictionary, or fetched and kept.
  func data(for url: URL) async throws -> Data {
    if let cached = images.withLock({ $0[url] }) { return cached }
    let (data, response) = try await session.data(from: url)
    guard (response as? HTTPURLResponse)?.statusCode == 200 else {
      throw BenchmarkError(description: "naive loader: not a 200 for \(url): \(response)")
    }
    images.withLock { $0[url] = data }
    return data
  }
}
