import Foundation
import Logging
import Networking
import Persistence

extension ImageLoader {
  /// What the server said to an image request.
  enum ServerAnswer: Sendable {
    /// The image, with what decides how it is kept.
    case image(Data, etag: String?, cacheControl: CacheControl)
    /// `304`: the cached copy is current.
    case notModified(etag: String?, cacheControl: CacheControl)
    /// A 2xx whose body is not an image: neither returned nor kept.
    case notAnImage(contentType: String?, size: Int)
    /// A 3xx other than 304 that the transport did not follow.
    case unexpected(status: Int)
  }

  /// Fetches `url`, revalidating `stale` with `If-None-Match` if it has an ETag, and keeps the answer.
  func download(_ url: URL, key: String, stale: CachedImage?) async throws -> Data {
    let validator = stale?.etag
    var request = APIRequest<ServerAnswer>(try ImagesRouter(url: url, ifNoneMatch: validator)) { raw in
      let cacheControl = CacheControl(raw.header("Cache-Control"))
      switch raw.status {
      case 304: return .notModified(etag: raw.header("ETag"), cacheControl: cacheControl)
      case 200..<300:
        guard ImageFormat.isImage(raw.body, contentType: raw.header("Content-Type")) else {
          return .notAnImage(contentType: raw.header("Content-Type"), size: raw.body.count)
        }
        return .image(raw.body, etag: raw.header("ETag"), cacheControl: cacheControl)
      default: return .unexpected(status: raw.status)
      }
    }
    // A 304 is an answer only to a conditional request; to any other it stays the client's status error.
    if validator != nil { request.acceptableStatus = 200...304 }
    let answer: ServerAnswer
    do {
      answer = try await client.send(request)
    } catch let failure as NetworkError where Self.mayServeStale(after: failure) {
      guard let stale else { throw failure }
      logger.warning("Returning the stale cached image for \(Self.describe(url)): \(failure)")
      count(\.staleServed)
      return stale.data
    }
    switch answer {
    case .notModified(let etag, let cacheControl):
      // Only a request carrying the stale copy's ETag accepts a 304, so the copy is there.
      guard let stale else { throw unexpected(304, url) }
      keep(stale.data, etag: etag ?? stale.etag, cacheControl, forKey: key, url: url)
      count(\.revalidationsNotModified)
      return stale.data
    case .image(let data, let etag, let cacheControl):
      keep(data, etag: etag, cacheControl, forKey: key, url: url)
      count(validator == nil ? \.networkLoads : \.revalidationsModified)
      return data
    case .notAnImage(let contentType, let size):
      throw ImageLoaderError(
        .notAnImage,
        "\(Self.describe(url)) is not an image (\(contentType ?? "no Content-Type"), \(size) bytes); it was not kept.")
    case .unexpected(let status):
      throw unexpected(status, url)
    }
  }

  private func unexpected(_ status: Int, _ url: URL) -> NetworkError {
    var failure = NetworkError(.status, "The server answered GET \(Self.describe(url)) with HTTP \(status).")
    failure.statusCode = status
    return failure
  }

  /// Whether a stale copy may stand in after `failure`: the server could not be reached, was busy, or failed.
  static func mayServeStale(after failure: NetworkError) -> Bool {
    switch failure.kind {
    case .transport, .rateLimited: true
    case .status, .server: (500...599).contains(failure.statusCode ?? 0)
    default: false
    }
  }

  /// Stores the image with the freshness its response gives it; removes any older copy for `no-store`. A failure
  /// to write the disk level is logged and the image is kept in memory only: the caller still gets its bytes.
  private func keep(_ data: Data, etag: String?, _ cacheControl: CacheControl, forKey key: String, url: URL) {
    do {
      guard !cacheControl.noStore else {
        try cache.removeValue(forKey: key)
        return
      }
      let lifetime = cacheControl.freshness(default: defaultMaxAge)
      let (seconds, attoseconds) = lifetime.components
      let expires = now().addingTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
      let image = CachedImage(data: data, etag: etag, expires: expires)
      do {
        try cache.store(image, forKey: key)
      } catch {
        cache.memory.setObject(image, forKey: key, cost: image.cost)
        throw error
      }
    } catch {
      logger.warning("Cannot keep the image \(Self.describe(url)) on disk: \(error)")
    }
  }
}
