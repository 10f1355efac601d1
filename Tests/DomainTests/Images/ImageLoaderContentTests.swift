import Domain
import Foundation
import Networking
import TestSupport
import Testing

/// A 200 that is not an image (a login page, a JSON error) is neither returned nor kept.
/// `ImageLoaderIntegrationTests` has a JSON body with a 200 from the Sandbox. Only here: its image route never answers
/// an HTML page, nor a PNG under another Content-Type.
@Suite("ImageLoader content", .timeLimit(.minutes(3)))
struct ImageLoaderContentTests {
  static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])

  private static func answer(_ body: Data, contentType: String?) -> FakeTransport.Answer {
    { _ in
      RawResponse(
        status: 200, headers: contentType.map { ["Content-Type": $0, "Cache-Control": "max-age=60"] } ?? [:],
        body: body)
    }
  }

  @Test("An HTML page or a JSON body answered with 200 fails as notAnImage and is not cached")
  func notAnImage() async throws {
    let harness = try ImageLoaderHarness(
      Self.answer(Data("<html>Sign in</html>".utf8), contentType: "text/html"),
      Self.answer(Data(#"{"error":"nope"}"#.utf8), contentType: nil),
      Self.answer(Self.png, contentType: "application/octet-stream"))

    for _ in 0..<2 {
      let error = await #expect(throws: ImageLoaderError.self) {
        _ = try await harness.loader.data(for: ImageLoaderHarness.url)
      }
      #expect(error?.kind == .notAnImage)
    }
    #expect(harness.loader.diskUsage.count == 0, "nothing was kept")

    // A PNG is recognised by its bytes, whatever its Content-Type says.
    #expect(try await harness.loader.data(for: ImageLoaderHarness.url) == Self.png)
    #expect(harness.loader.diskUsage.count == 1)
  }
}
