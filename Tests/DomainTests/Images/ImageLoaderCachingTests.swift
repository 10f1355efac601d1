import Clocks
import Domain
import Foundation
import Networking
import Persistence
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// REQUIREMENTS A8: memory, then disk, then the network; what is cached and what is not.
/// `ImageLoaderIntegrationTests` shows memory and disk hits, a restart, errors not cached, `no-store` and a failed
/// transfer with nothing cached against the Sandbox. Only here: an answer without Cache-Control, which the Sandbox
/// always sends, and what involves no server (a bad URL, the limits, a disk read once memory is emptied).
@Suite("ImageLoader caching", .timeLimit(.minutes(3)))
struct ImageLoaderCachingTests {
  @Test("A second load of a URL is a memory hit: one request")
  func memoryHit() async throws {
    // GIVEN a loader whose server has one image
    let harness = try ImageLoaderHarness(ImageAnswer.image("png-1"))

    // WHEN the same URL is loaded twice
    let first = try await harness.loader.data(for: ImageLoaderHarness.url)
    let second = try await harness.loader.data(for: ImageLoaderHarness.url)

    // THEN the server was asked once, and the second load came from memory
    #expect(first == Data("png-1".utf8))
    #expect(second == first)
    #expect(harness.transport.requests.count == 1)
    #expect(harness.transport.requests.first?.url == ImageLoaderHarness.url)
    #expect(
      harness.loader.statistics
        == .with {
          $0.networkLoads = 1
          $0.memoryHits = 1
        })
  }

  @Test("A URL relative to a base and the same URL written whole are one cache entry")
  func relativeURLSharesTheEntry() async throws {
    // GIVEN an image loaded by its whole URL
    let harness = try ImageLoaderHarness(ImageAnswer.image("png-1"))
    _ = try await harness.loader.data(for: ImageLoaderHarness.url)

    // WHEN the same image is asked for relative to its folder
    let folder = ImageLoaderHarness.url.deletingLastPathComponent()
    let relative = try #require(URL(string: "ana.png?size=64", relativeTo: folder))
    #expect(relative.baseURL != nil)
    let second = try await harness.loader.data(for: relative)

    // THEN it is the memory hit of the first load: the key is the absolute string either way
    #expect(second == Data("png-1".utf8))
    #expect(harness.transport.requests.count == 1)
    #expect(harness.loader.statistics.memoryHits == 1)
  }

  @Test("After a restart, a new loader on the same directory reads the image from disk, then from memory")
  func diskHitAfterRestart() async throws {
    // GIVEN an image loaded once, then the app restarted: a new loader whose server must not be asked
    let harness = try ImageLoaderHarness(ImageAnswer.image("png-1"))
    _ = try await harness.loader.data(for: ImageLoaderHarness.url)
    let restarted = try harness.restarted()

    // WHEN the image is loaded twice
    let first = try await restarted.loader.data(for: ImageLoaderHarness.url)
    let second = try await restarted.loader.data(for: ImageLoaderHarness.url)

    // THEN it came from disk, then from memory, and nothing was sent
    #expect(first == Data("png-1".utf8))
    #expect(second == first)
    #expect(restarted.transport.requests.isEmpty)
    #expect(
      restarted.loader.statistics
        == .with {
          $0.diskHits = 1
          $0.memoryHits = 1
        })
  }

  @Test("After the memory level is emptied, the image comes from disk")
  func diskHitAfterClearMemory() async throws {
    let harness = try ImageLoaderHarness(ImageAnswer.image("png-1"))
    _ = try await harness.loader.data(for: ImageLoaderHarness.url)

    harness.loader.clearMemory()
    let data = try await harness.loader.data(for: ImageLoaderHarness.url)

    #expect(data == Data("png-1".utf8))
    #expect(
      harness.loader.statistics
        == .with {
          $0.networkLoads = 1
          $0.diskHits = 1
        })
  }

  @Test("An error status reaches the caller and is not cached: the next load asks again")
  func errorsAreNotCached() async throws {
    // GIVEN a server that answers 404, then 500, then the image
    let harness = try ImageLoaderHarness(ImageAnswer.status(404), ImageAnswer.status(500), ImageAnswer.image("png-1"))

    // WHEN the URL is loaded three times
    let notFound = await #expect(throws: ImageLoaderError.self) {
      try await harness.loader.data(for: ImageLoaderHarness.url)
    }
    let failed = await #expect(throws: ImageLoaderError.self) {
      try await harness.loader.data(for: ImageLoaderHarness.url)
    }
    let data = try await harness.loader.data(for: ImageLoaderHarness.url)

    // THEN each failure was the server's, and the third load got the image
    #expect(notFound?.requestFailure?.statusCode == 404)
    #expect(failed?.requestFailure?.statusCode == 500)
    #expect(data == Data("png-1".utf8))
    #expect(harness.transport.requests.count == 3)
    #expect(
      harness.loader.statistics
        == .with {
          $0.failures = 2
          $0.networkLoads = 1
        })
  }

  @Test("A failed transfer reaches the caller when nothing is cached")
  func transportFailureWithoutCache() async throws {
    let harness = try ImageLoaderHarness(ImageAnswer.offline())

    let failure = await #expect(throws: ImageLoaderError.self) {
      try await harness.loader.data(for: ImageLoaderHarness.url)
    }

    #expect(failure?.kind == .requestFailed)
    #expect(failure?.requestFailure?.kind == .transport)
    #expect(harness.loader.statistics == .with { $0.failures = 1 })
  }

  @Test(
    "A URL without an http(s) scheme or a host is refused before anything is sent",
    arguments: ["ftp://images.example.com/a.png", "file:///tmp/a.png", "/avatars/a.png", "https:///a.png"])
  func invalidURL(_ text: String) async throws {
    let harness = try ImageLoaderHarness()
    let url = try #require(URL(string: text))

    let error = await #expect(throws: ImageLoaderError.self) { try await harness.loader.data(for: url) }

    #expect(error?.kind == .invalidURL)
    #expect(harness.transport.requests.isEmpty)
    #expect(harness.loader.statistics == ImageLoaderStatistics())
  }

  @Test("Cache-Control no-store: the image is returned but not kept")
  func noStore() async throws {
    let harness = try ImageLoaderHarness(
      ImageAnswer.image("png-1", cacheControl: "no-store"), ImageAnswer.image("png-2", cacheControl: "no-store"))

    let first = try await harness.loader.data(for: ImageLoaderHarness.url)
    let second = try await harness.loader.data(for: ImageLoaderHarness.url)

    #expect(first == Data("png-1".utf8))
    #expect(second == Data("png-2".utf8))
    #expect(try harness.loader.cache.value(forKey: ImageLoaderHarness.url.absoluteString) == nil)
    #expect(harness.loader.statistics == .with { $0.networkLoads = 2 })
  }

  @Test("Without Cache-Control, an image is fresh for the default max-age")
  func defaultMaxAge() async throws {
    // GIVEN a default max-age of 10 minutes and an image whose response has no Cache-Control
    let limits = ImageCacheLimits(defaultMaxAge: .seconds(600))
    let harness = try ImageLoaderHarness(ImageAnswer.image("png-1", cacheControl: nil), limits: limits)
    _ = try await harness.loader.data(for: ImageLoaderHarness.url)

    // THEN it is kept fresh until then
    let cached = try #require(try harness.loader.cache.value(forKey: ImageLoaderHarness.url.absoluteString))
    #expect(cached.expires == harness.now.addingTimeInterval(600))
    #expect(cached.etag == "\"v1\"")
    #expect(harness.loader.defaultMaxAge == .seconds(600))
  }

  @Test("Limits out of range are refused with a typed error")
  func invalidLimits() throws {
    let directory = try temporaryDirectory()
    for limits in [
      ImageCacheLimits(memoryCostLimit: -1), ImageCacheLimits(memoryCountLimit: -1), ImageCacheLimits(diskSizeLimit: 0),
      ImageCacheLimits(defaultMaxAge: .seconds(-1)),
    ] {
      let error = #expect(throws: ImageLoaderError.self) {
        try ImageLoader.makeCache(directory: directory, limits: limits)
      }
      #expect(error?.kind == .invalidConfiguration)
    }
  }

  @Test("The factory's cache has the limits asked for, and keeps stale entries on disk")
  func factoryLimits() throws {
    let limits = ImageCacheLimits(memoryCostLimit: 1 << 20, memoryCountLimit: 10, diskSizeLimit: 4 << 20)
    let cache = try ImageLoader.makeCache(directory: try temporaryDirectory(), limits: limits)
    #expect(cache.memory.totalCostLimit == 1 << 20)
    #expect(cache.memory.countLimit == 10)
    #expect(cache.disk.sizeLimit == 4 << 20)
    #expect(cache.disk.defaultTTL == nil)
    #expect(cache.memory.defaultTTL == nil)
  }
}
