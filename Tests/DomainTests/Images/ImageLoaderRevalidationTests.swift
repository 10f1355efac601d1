import Clocks
import Domain
import Foundation
import Networking
import Persistence
import TestSupport
import Testing

/// REQUIREMENTS A8: freshness from Cache-Control, and stale images revalidated with If-None-Match.
/// `ImageLoaderIntegrationTests` shows a 304, a 200 with new bytes, stale bytes on a 503 and with the server gone, a
/// 404, an unsolicited 304, `no-cache` and freshness renewed across a restart against the Sandbox. Only here: a 304
/// that changes max-age and an image without an ETag, which the Sandbox never sends.
@Suite("ImageLoader revalidation", .timeLimit(.minutes(3)))
struct ImageLoaderRevalidationTests {
  private let key = ImageLoaderHarness.url.absoluteString

  @Test("A stale image is revalidated with If-None-Match; a 304 returns the cached bytes and renews freshness")
  func notModified() async throws {
    // GIVEN an image fresh for 60 s, then 61 s later
    let harness = try ImageLoaderHarness(
      ImageAnswer.image("png-1", etag: "\"v1\"", cacheControl: "max-age=60"),
      ImageAnswer.notModified(etag: "\"v1\"", cacheControl: "max-age=120"))
    _ = try await harness.loader.data(for: ImageLoaderHarness.url)
    await harness.clock.advance(by: .seconds(61))

    // WHEN it is loaded again, and then once more
    let revalidated = try await harness.loader.data(for: ImageLoaderHarness.url)
    let again = try await harness.loader.data(for: ImageLoaderHarness.url)

    // THEN the second request carried the ETag, the cached bytes came back, and they are fresh for 120 s more
    #expect(harness.validatorsSent == [nil, "\"v1\""])
    #expect(revalidated == Data("png-1".utf8))
    #expect(again == revalidated)
    let cached = try #require(try harness.loader.cache.value(forKey: key))
    #expect(cached.expires == harness.now.addingTimeInterval(120))
    #expect(
      harness.loader.statistics
        == .with {
          $0.networkLoads = 1
          $0.revalidationsNotModified = 1
          $0.memoryHits = 1
        })
  }

  @Test("The renewed freshness survives a restart")
  func notModifiedPersists() async throws {
    let harness = try ImageLoaderHarness(
      ImageAnswer.image("png-1", cacheControl: "max-age=60"), ImageAnswer.notModified(cacheControl: "max-age=600"))
    _ = try await harness.loader.data(for: ImageLoaderHarness.url)
    await harness.clock.advance(by: .seconds(61))
    _ = try await harness.loader.data(for: ImageLoaderHarness.url)
    await harness.clock.advance(by: .seconds(300))

    let restarted = try harness.restarted()
    let data = try await restarted.loader.data(for: ImageLoaderHarness.url)

    #expect(data == Data("png-1".utf8))
    #expect(restarted.transport.requests.isEmpty)
    #expect(restarted.loader.statistics == .with { $0.diskHits = 1 })
  }

  @Test("A stale image whose revalidation gets a 200 is replaced by the new one")
  func modified() async throws {
    let harness = try ImageLoaderHarness(
      ImageAnswer.image("png-1", etag: "\"v1\""), ImageAnswer.image("png-2", etag: "\"v2\"", cacheControl: "max-age=30")
    )
    _ = try await harness.loader.data(for: ImageLoaderHarness.url)
    await harness.clock.advance(by: .seconds(60))

    let data = try await harness.loader.data(for: ImageLoaderHarness.url)

    #expect(data == Data("png-2".utf8))
    #expect(harness.validatorsSent == [nil, "\"v1\""])
    let cached = try #require(try harness.loader.cache.value(forKey: key))
    #expect(
      cached == CachedImage(data: Data("png-2".utf8), etag: "\"v2\"", expires: harness.now.addingTimeInterval(30)))
    #expect(
      harness.loader.statistics
        == .with {
          $0.networkLoads = 1
          $0.revalidationsModified = 1
        })
  }

  @Test("A stale image without an ETag is fetched again in full")
  func staleWithoutETag() async throws {
    let harness = try ImageLoaderHarness(
      ImageAnswer.image("png-1", etag: nil), ImageAnswer.image("png-2", etag: nil))
    _ = try await harness.loader.data(for: ImageLoaderHarness.url)
    await harness.clock.advance(by: .seconds(60))

    let data = try await harness.loader.data(for: ImageLoaderHarness.url)

    #expect(data == Data("png-2".utf8))
    #expect(harness.validatorsSent == [nil, nil])
    #expect(harness.loader.statistics == .with { $0.networkLoads = 2 })
  }

  @Test("Cache-Control no-cache: the image is kept but revalidated on every load")
  func noCache() async throws {
    let harness = try ImageLoaderHarness(
      ImageAnswer.image("png-1", cacheControl: "no-cache"), ImageAnswer.notModified(cacheControl: "no-cache"))

    _ = try await harness.loader.data(for: ImageLoaderHarness.url)
    let data = try await harness.loader.data(for: ImageLoaderHarness.url)

    #expect(data == Data("png-1".utf8))
    #expect(harness.validatorsSent == [nil, "\"v1\""])
    #expect(
      harness.loader.statistics
        == .with {
          $0.networkLoads = 1
          $0.revalidationsNotModified = 1
        })
  }

  @Test(
    "When revalidation cannot reach the server or gets a 5xx, the stale bytes are returned; the next load tries again",
    arguments: RevalidationFailure.allCases)
  func staleIfError(failure: RevalidationFailure) async throws {
    // GIVEN a stale image whose server then fails once, and then answers 304
    let harness = try ImageLoaderHarness(
      ImageAnswer.image("png-1"), failure.answer, ImageAnswer.notModified())
    _ = try await harness.loader.data(for: ImageLoaderHarness.url)
    await harness.clock.advance(by: .seconds(60))

    // WHEN it is loaded twice
    let stale = try await harness.loader.data(for: ImageLoaderHarness.url)
    let revalidated = try await harness.loader.data(for: ImageLoaderHarness.url)

    // THEN the first got the stale bytes, and the second revalidated them
    #expect(stale == Data("png-1".utf8))
    #expect(revalidated == stale)
    #expect(harness.validatorsSent == [nil, "\"v1\"", "\"v1\""])
    #expect(
      harness.loader.statistics
        == .with {
          $0.networkLoads = 1
          $0.staleServed = 1
          $0.revalidationsNotModified = 1
        })
  }

  enum RevalidationFailure: CaseIterable, Sendable {
    case offline
    case serviceUnavailable

    var answer: FakeTransport.Answer {
      switch self {
      case .offline: ImageAnswer.offline()
      case .serviceUnavailable: ImageAnswer.status(503)
      }
    }
  }

  @Test("A 404 to a revalidation is an error, not a stale answer")
  func clientErrorOnRevalidation() async throws {
    let harness = try ImageLoaderHarness(ImageAnswer.image("png-1"), ImageAnswer.status(404))
    _ = try await harness.loader.data(for: ImageLoaderHarness.url)
    await harness.clock.advance(by: .seconds(60))

    let error = await #expect(throws: ImageLoaderError.self) {
      try await harness.loader.data(for: ImageLoaderHarness.url)
    }

    #expect(error?.requestFailure?.statusCode == 404)
    #expect(
      harness.loader.statistics
        == .with {
          $0.networkLoads = 1
          $0.failures = 1
        })
  }

  @Test("A 304 to a request without If-None-Match is an error")
  func unsolicitedNotModified() async throws {
    let harness = try ImageLoaderHarness(ImageAnswer.notModified())

    let error = await #expect(throws: ImageLoaderError.self) {
      try await harness.loader.data(for: ImageLoaderHarness.url)
    }

    #expect(error?.requestFailure?.statusCode == 304)
    #expect(try harness.loader.cache.value(forKey: key) == nil)
  }
}
