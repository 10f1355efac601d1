import Dispatch
import Foundation
import KeelConcurrency

/// Draws the Sandbox's PNGs off the request path: one at a time on a thread of its own, never on the threads that
/// serve other routes, and each drawn image kept (up to ``byteLimit``) so that the same id and size is drawn once.
/// Thirty concurrent requests for large images then wait for each other, not a `GET /v3/users` beside them.
final class ImageRenderer: Sendable {
  /// The most bytes of drawn images kept; the least recently used go first.
  let byteLimit: Int
  private let queue = DispatchQueue(label: "keel.sandbox.images")
  private let kept = Locked<(images: [String: [UInt8]], order: [String], bytes: Int)>(([:], [], 0))
  private let stats: RecordedStatistics

  /// A renderer that keeps up to `byteLimit` bytes of drawn images (32 MiB: seven of the largest), and counts each
  /// image it draws in `stats` as `imageRenders`.
  init(stats: RecordedStatistics, byteLimit: Int = 32 << 20) {
    self.stats = stats
    self.byteLimit = byteLimit
  }

  /// The image under `key`, drawn by `draw` on the renderer's thread unless it is kept.
  func image(forKey key: String, draw: @escaping @Sendable () -> [UInt8]) async -> [UInt8] {
    if let image = lookUp(key) { return image }
    return await withCheckedContinuation { continuation in
      queue.async { [self] in
        // A request queued behind the one that drew the same image finds it here.
        if let image = lookUp(key) {
          continuation.resume(returning: image)
          return
        }
        let image = draw()
        stats.count("imageRenders")
        keep(image, forKey: key)
        continuation.resume(returning: image)
      }
    }
  }

  private func lookUp(_ key: String) -> [UInt8]? {
    kept.withLock { kept in
      guard let image = kept.images[key] else { return nil }
      if let index = kept.order.firstIndex(of: key) { kept.order.remove(at: index) }
      kept.order.append(key)
      return image
    }
  }

  private func keep(_ image: [UInt8], forKey key: String) {
    guard image.count <= byteLimit else { return }
    kept.withLock { kept in
      kept.images[key] = image
      kept.order.append(key)
      kept.bytes += image.count
      while kept.bytes > byteLimit, !kept.order.isEmpty {
        let oldest = kept.order.removeFirst()
        kept.bytes -= kept.images.removeValue(forKey: oldest)?.count ?? 0
      }
    }
  }
}
