import Foundation

/// The `Cache-Control` directives of a response that decide how the image loader keeps it (RFC 9111 §5.2.2).
///
/// Directives the loader has no use for (`private`, `public`, `immutable`, `s-maxage`, …) are ignored; so is a
/// malformed `max-age`, which then falls back to the loader's default, as a missing one does.
struct CacheControl: Equatable, Sendable {
  /// `no-store`: the response must not be kept at all.
  var noStore = false
  /// `no-cache`: the response may be kept, but must be revalidated before every use.
  var noCache = false
  /// `max-age=N`: fresh for N seconds after it was received.
  var maxAge: Int?

  /// The directives of `header`, a `Cache-Control` value such as `public, max-age=3600`; none for `nil`.
  init(_ header: String?) {
    guard let header else { return }
    for directive in header.split(separator: ",") {
      let parts = directive.split(separator: "=", maxSplits: 1).map {
        $0.trimmingCharacters(in: .whitespaces).lowercased()
      }
      switch parts.first {
      case "no-store": noStore = true
      case "no-cache": noCache = true
      case "max-age":
        // The value may be quoted (`max-age="60"`), which RFC 9111 says a cache should accept.
        if parts.count == 2, let seconds = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))),
          seconds >= 0
        {
          maxAge = seconds
        }
      default: break
      }
    }
  }

  /// How long a response with these directives is fresh: none for `no-cache`, else `max-age`, else `defaultMaxAge`.
  func freshness(default defaultMaxAge: Duration) -> Duration {
    if noCache { return .zero }
    return maxAge.map { .seconds($0) } ?? defaultMaxAge
  }
}
