import Domain
import Foundation
import Networking
import Persistence

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The image loader's rows: the memory-hit path, and 100 concurrent loads of one URL (server hits, Keel vs naive).
///
/// The peer in both is ``NaiveImageLoader``: a lock-guarded `[URL: Data]` over `URLSession`, what an app writes by
/// hand. On a hit it does less than Keel (no freshness check, no LRU bookkeeping, no statistics), so the hit row
/// shows what those cost; on concurrent misses it fetches once per caller, which the second row counts.
enum ImageLoaderBenchmarks {
  /// Distinct URLs in the memory-hit row, all cached.
  static let urlCount = 1_000
  /// Bytes per cached image: a small thumbnail.
  static let imageSize = 4_096
  /// Concurrent loads of one URL in the server-hits row.
  static let concurrentLoads = 100

  static func comparisons(quick: Bool) -> [Comparison] {
    let samples = quick ? 100 : 1_000
    let shared = DomainBenchSandbox()
    return [
      Comparison(
        name: "domain.imageLoader.memoryHit", unit: "µs/load", better: .lower, target: nil,
        keel: { try await keelMemoryHit(samples: samples) }, peer: { try await peerMemoryHit(samples: samples) }),
      // Both sides are deterministic (1 and 100); three rounds only confirm it.
      Comparison(
        name: "domain.imageLoader.concurrent100.serverHits", unit: "requests", better: .lower, target: 1,
        rounds: (1, 3), warmUps: 0,
        keel: { try await keelConcurrent(shared) }, peer: { try await peerConcurrent(shared) },
        finish: { await shared.stop() }),
    ]
  }

  // MARK: - Memory hits

  private static let urls = (0..<urlCount).map { URL(string: "https://images.example.com/avatars/\($0).png?size=64")! }
  private static let image = Data((0..<imageSize).map { UInt8(truncatingIfNeeded: $0) })

  /// `ImageLoader.data(for:)` on URLs that are all fresh in memory: the client's transport refuses every request,
  /// so a miss would fail the row.
  private static func keelMemoryHit(samples: Int) async throws -> Double {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-bench-images-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let loader = try ImageLoader(client: HTTPClient(transport: RefusingTransport()), directory: directory)
    for url in urls {
      try loader.cache.store(
        CachedImage(data: image, etag: "\"bench\"", expires: .distantFuture), forKey: url.absoluteString)
    }
    let perLoad = try await medianPerLoad(samples: samples) { try await loader.data(for: $0) }
    guard loader.statistics.memoryHits == samples * urlCount, loader.statistics.networkLoads == 0 else {
      throw BenchmarkError(description: "memory hit: \(loader.statistics)")
    }
    try loader.cache.disk.close()
    return perLoad
  }

  private static func peerMemoryHit(samples: Int) async throws -> Double {
    let loader = NaiveImageLoader(session: URLSession(configuration: .ephemeral))
    for url in urls { loader.store(image, for: url) }
    return try await medianPerLoad(samples: samples) { try await loader.data(for: $0) }
  }

  /// The median, over `samples` passes over every URL, of the time per load, in microseconds.
  private static func medianPerLoad(samples: Int, _ load: (URL) async throws -> Data) async throws -> Double {
    let clock = ContinuousClock()
    var perLoad: [Double] = []
    perLoad.reserveCapacity(samples)
    for _ in 0..<samples {
      var bytes = 0
      let start = clock.now
      for url in urls { bytes += try await load(url).count }
      perLoad.append(nanoseconds(start.duration(to: clock.now)) / 1_000 / Double(urlCount))
      guard bytes == urlCount * imageSize else { throw BenchmarkError(description: "memory hit: \(bytes) bytes") }
    }
    return median(perLoad)
  }

  // MARK: - 100 concurrent loads of one URL

  /// A new `ImageLoader` with an empty cache; 100 tasks load one URL at once. Returns the Sandbox's image requests.
  private static func keelConcurrent(_ shared: DomainBenchSandbox) async throws -> Double {
    let running = try await shared.start()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-bench-images-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let loader = try ImageLoader(
      client: HTTPClient(transport: URLSessionTransport(session: running.keelSession)), directory: directory)
    defer { try? loader.cache.disk.close() }
    return try await serverHits(shared) { url in try await loader.data(for: url) }
  }

  /// A new ``NaiveImageLoader`` with an empty dictionary; 100 tasks load one URL at once.
  private static func peerConcurrent(_ shared: DomainBenchSandbox) async throws -> Double {
    let running = try await shared.start()
    let loader = NaiveImageLoader(session: running.peerSession)
    return try await serverHits(shared) { url in try await loader.data(for: url) }
  }

  /// The image requests the Sandbox answered while ``concurrentLoads`` tasks ran `load` on a fresh URL; throws
  /// unless every task got the same PNG.
  private static func serverHits(
    _ shared: DomainBenchSandbox, _ load: @escaping @Sendable (URL) async throws -> Data
  ) async throws -> Double {
    let url = try await shared.nextImageURL()
    let before = try await shared.imageHits()
    let images = try await withThrowingTaskGroup(of: Data.self) { group in
      for _ in 0..<concurrentLoads { group.addTask { try await load(url) } }
      return try await group.reduce(into: [Data]()) { $0.append($1) }
    }
    let after = try await shared.imageHits()
    guard images.count == concurrentLoads, Set(images).count == 1, images[0].starts(with: [0x89, 0x50, 0x4E, 0x47])
    else { throw BenchmarkError(description: "concurrent loads: \(Set(images).count) different answers") }
    return Double(after - before)
  }
}

/// A transport that refuses every request: the memory-hit row must never reach it.
private struct RefusingTransport: HTTPTransport {
  func send(_ request: URLRequest) async throws -> RawResponse {
    throw BenchmarkError(description: "memory hit: a request was sent for \(request.url?.absoluteString ?? "?")")
  }
}
