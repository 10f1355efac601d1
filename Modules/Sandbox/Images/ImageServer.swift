import Foundation
import HTTPTypes
import KeelConcurrency
import KeelRandom

/// `GET /images/{id}.png?size=N` (SandboxAPI §4): a PNG of N × N pixels (1–2,048, default 256), the same for the
/// same id, size and edition, with `ETag` and `Cache-Control: max-age=3600` (`?cache=no-store` or `?cache=no-cache`
/// for those instead); `If-None-Match` with the current ETag is 304. The control plane's redraw starts a new edition:
/// every image is drawn in other colours under a new ETag, as when a server's images are replaced. The drawing
/// happens in ``ImageRenderer``, off the request path.
struct ImageServer: Sendable {
  let stats: RecordedStatistics
  let renderer: ImageRenderer
  /// How many times the images were redrawn since the start or the last reset.
  let edition: Locked<Int>

  var routes: [Route] { [Route(.get, "/images/:file", handler: image)] }

  private func image(_ request: SandboxRequest) async throws -> SandboxResponse {
    guard let file = request.parameter("file"), file.hasSuffix(".png") else { throw BackendError.notFound("Image") }
    let id = String(file.dropLast(4))
    guard (1...64).contains(id.count),
      id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) })
    else { throw BackendError.notFound("Image") }
    guard let size = Int(request.query["size"] ?? "256"), (1...2_048).contains(size) else {
      throw BackendError.malformed("size must be 1 to 2048")
    }
    let cacheControl: String
    switch request.query["cache"] {
    case nil: cacheControl = "max-age=3600"
    case let value? where value == "no-store" || value == "no-cache": cacheControl = value
    default: throw BackendError.malformed("cache must be no-store or no-cache")
    }
    let edition = edition.withLock { $0 }
    // Edition 0 keeps the keys every earlier run drew, so that an image's bytes and ETag never change by themselves.
    let key = edition == 0 ? "\(id):\(size)" : "\(id):\(size):\(edition)"
    let seed = FNV1a.hash64(key)
    let etag = "\"\(String(seed, radix: 16))\""
    stats.count("imageHits")
    var headers: HTTPFields = [.eTag: etag, .cacheControl: cacheControl]
    if request.header("If-None-Match") == etag {
      return SandboxResponse(status: .notModified, body: Data(), headers: headers)
    }
    headers[.contentType] = "image/png"
    let colours = edition == 0 ? id : "\(id)#\(edition)"
    let png = await renderer.image(forKey: key) { Self.render(colours: colours, size: size) }
    return SandboxResponse(status: .ok, body: Data(png), headers: headers)
  }

  /// Diagonal bands in a palette of eight colours derived from `colours` (the id, and the edition after a redraw):
  /// recognisably different per id and edition, identical per (id, size, edition).
  private static func render(colours: String, size: Int) -> [UInt8] {
    var generator = SplitMix64(seed: FNV1a.hash64(colours))
    let palette = (0..<8).map { _ in
      let bits = generator.next()
      return (
        UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8), UInt8(truncatingIfNeeded: bits >> 16)
      )
    }
    let band = max(1, size / 8)
    return PNGEncoder.encode(width: size, height: size, palette: palette) { x, y in UInt8(((x + y) / band) % 8) }
  }
}
