import Foundation
import Testing

@testable import Domain

/// How a response's Cache-Control decides the freshness of the image it carries. Pure parsing that needs no server.
@Suite("CacheControl")
struct CacheControlTests {
  @Test("max-age, quoted or not, among other directives and in any case")
  func maxAge() {
    #expect(CacheControl("max-age=3600").maxAge == 3_600)
    #expect(CacheControl("public, MAX-AGE=60, immutable").maxAge == 60)
    #expect(CacheControl("max-age=\"90\"").maxAge == 90)
    #expect(CacheControl("max-age=60").freshness(default: .seconds(5)) == .seconds(60))
  }

  @Test("A missing or malformed max-age falls back to the default")
  func fallback() {
    for header in [nil, "", "public", "max-age=soon", "max-age=-5", "max-age"] {
      #expect(CacheControl(header).freshness(default: .seconds(5)) == .seconds(5), "\(header ?? "nil")")
    }
  }

  @Test("no-cache is fresh for no time; no-store is noted")
  func noCacheAndNoStore() {
    #expect(CacheControl("no-cache, max-age=600").freshness(default: .seconds(5)) == .zero)
    #expect(CacheControl("private, no-store").noStore)
    #expect(!CacheControl("max-age=1").noStore)
  }
}
