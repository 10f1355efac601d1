import Foundation
import HTTPTypes
import KeelBasics

/// `GET /images/{id}.png?size=N` (SandboxAPI §4): a PNG of N × N pixels (1–2,048, default 256), the same for the
/// same id and size, with `ETag` and `Cache-Control: max-age=3600`; `If-None-Match` with the current ETag is 304.
/// The drawing happens in ``ImageRenderer``, off the request path.
struct ImageServer: Sendable {
  let stats: RecordedStatistics
  let renderer: ImageRenderer

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
    let seed = FNV1a.hash64("\(id):\(size)")
    let etag = "\"\(String(seed, radix: 16))\""
    stats.count("imageHits")
    var headers: HTTPFields = [.eTag: etag, .cacheControl: "max-age=3600"]
    if request.header("If-None-Match") == etag {
      return SandboxResponse(status: .notModified, body: Data(), headers: headers)
    }
    headers[.contentType] = "image/png"
    let png = await renderer.image(forKey: "\(id):\(size)") { Self.render(id: id, size: size, seed: seed) }
    return SandboxResponse(status: .ok, body: Data(png), headers: headers)
  }

  /// Diagonal bands in a palette of eight colours derived from the id: recognisably different per id, identical per
  /// (id, size).
  private static func render(id: String, size: Int, seed: UInt64) -> [UInt8] {
    var generator = SplitMix64(seed: FNV1a.hash64(id))
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
