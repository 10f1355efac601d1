import Clocks
import Domain
import Foundation
import Logging
import Networking
import Persistence
import Sandbox
import TestSupport
import Testing

/// REQUIREMENTS A8 over real HTTP: the image loader against the Sandbox's `/images`, counted by its `imageHits`.
@Suite("ImageLoader against the Sandbox", .timeLimit(.minutes(3)))
struct ImageLoaderIntegrationTests {
  /// The PNG signature every Sandbox image starts with.
  private static let pngSignature = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])

  @Test("100 concurrent loads of one URL make exactly one request to the Sandbox", arguments: TransportKind.allCases)
  func hundredConcurrentLoads(_ kind: TransportKind) async throws {
    // GIVEN a Sandbox and a loader with an empty cache
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let loader = try loader(kind)
    let url = try imageURL("ana", size: 64, on: sandbox)

    // WHEN 100 tasks load the same URL at once
    let images = try await withThrowingTaskGroup(of: Data.self) { group in
      for _ in 0..<100 { group.addTask { try await loader.data(for: url) } }
      return try await group.reduce(into: [Data]()) { $0.append($1) }
    }

    // THEN all got the same PNG, and the Sandbox served it once
    #expect(images.count == 100)
    #expect(Set(images).count == 1)
    #expect(images.first?.starts(with: Self.pngSignature) == true)
    #expect(try await sandboxCounter("imageHits", on: sandbox) == 1)
    let statistics = loader.statistics
    #expect(statistics.networkLoads == 1)
    #expect(statistics.coalescedJoins + statistics.memoryHits == 99, "\(statistics)")
    await sandbox.stop()
  }

  @Test(
    "After a restart, a new loader on the same directory answers from disk without asking the Sandbox",
    arguments: TransportKind.allCases)
  func restartIsADiskHit(_ kind: TransportKind) async throws {
    // GIVEN an image loaded once, and the loader's disk level closed as the app quits
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let cacheDirectory = try directory()
    let url = try imageURL("bo", size: 32, on: sandbox)
    let first = try loader(kind, in: cacheDirectory)
    let original = try await first.data(for: url)
    try first.cache.disk.close()

    // WHEN a new loader on the same directory loads it
    let restarted = try loader(kind, in: cacheDirectory)
    let data = try await restarted.data(for: url)

    // THEN the bytes came from disk, and the Sandbox saw one request in all
    #expect(data == original)
    #expect(restarted.statistics == .init(diskHits: 1))
    #expect(try await sandboxCounter("imageHits", on: sandbox) == 1)
    await sandbox.stop()
  }

  @Test(
    "Past the Sandbox's max-age, the image is revalidated: a 304, and the cached bytes come back",
    arguments: TransportKind.allCases)
  func staleImageIsRevalidated(_ kind: TransportKind) async throws {
    // GIVEN an image loaded at time 0 (the Sandbox says max-age=3600)
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let clock = TestClock()
    let loader = try loader(kind, on: clock)
    let url = try imageURL("cy", size: 16, on: sandbox)
    let original = try await loader.data(for: url)

    // WHEN it is loaded again two hours later
    await clock.advance(by: .seconds(7_200))
    let revalidated = try await loader.data(for: url)

    // THEN the Sandbox answered the If-None-Match with 304, and the cached bytes came back
    #expect(revalidated == original)
    #expect(try await sandboxResponses("GET /images/:file", status: 304, on: sandbox) == 1)
    #expect(try await sandboxCounter("imageHits", on: sandbox) == 2)
    #expect(loader.statistics.revalidationsNotModified == 1)
    await sandbox.stop()
  }

  @Test(
    "A revalidation the Sandbox fails (503) gives back the stale bytes; the next one, answered 304, keeps them",
    arguments: TransportKind.allCases)
  func staleIfError(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let clock = TestClock()
    let loader = try loader(kind, on: clock)
    let url = try imageURL("cy", size: 16, on: sandbox)
    let original = try await loader.data(for: url)
    await clock.advance(by: .seconds(7_200))

    try await sandbox.control.addFault(SandboxFault(route: "/images/cy.png", method: "GET", status: 503))
    #expect(try await loader.data(for: url) == original, "stale, rather than the failure")
    try await sandbox.control.removeFaults()
    #expect(try await loader.data(for: url) == original)
    #expect(try await sandboxResponses("GET /images/:file", status: 503, on: sandbox) >= 1)
    #expect(try await sandboxResponses("GET /images/:file", status: 304, on: sandbox) == 1)
    #expect(
      loader.statistics.staleServed == 1 && loader.statistics.revalidationsNotModified == 1, "\(loader.statistics)")
    await sandbox.stop()
  }

  @Test(
    "Errors are not cached: a 404 and a 503 from the Sandbox each fail their load, and the next load gets the image",
    arguments: TransportKind.allCases)
  func errorsAreNotCached(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let loader = try loader(kind)
    let url = try imageURL("dee", size: 16, on: sandbox)
    for status in [404, 503] {
      try await sandbox.control.addFault(SandboxFault(route: "/images/dee.png", method: "GET", status: status))
      let error = await #expect(throws: ImageLoaderError.self) { try await loader.data(for: url) }
      #expect(error?.requestFailure?.statusCode == status)
      try await sandbox.control.removeFaults()
    }
    let image = try await loader.data(for: url)
    #expect(image.starts(with: Self.pngSignature))
    #expect(loader.statistics.networkLoads == 1 && loader.statistics.failures == 2, "\(loader.statistics)")
    await sandbox.stop()
  }

  @Test(
    "Cancelling one of two callers of a slow image returns it at once; the one request goes on for the other",
    arguments: TransportKind.allCases)
  func cancellingOneOfTwoCallers(_ kind: TransportKind) async throws {
    // The Sandbox holds the image's answer for a second of its clock, which the test moves.
    let serverClock = HoldingClock()
    let sandbox = try await Sandbox.start(
      SandboxConfiguration(
        faults: [SandboxFault(route: "/images/eve.png", method: "GET", latency: .seconds(1))], clock: serverClock,
        logLevel: .warning))
    let loader = try loader(kind)
    let url = try imageURL("eve", size: 16, on: sandbox)

    let first = TaskProbe { try await loader.data(for: url) }
    #expect(await requestHeld(on: serverClock), "the request reached the Sandbox")
    let second = TaskProbe { try await loader.data(for: url) }
    #expect(await eventually { loader.statistics.coalescedJoins == 1 })
    first.cancel()
    #expect(await first.error() is CancellationError)
    #expect(!second.isFinished)

    await serverClock.advance(by: .seconds(1))
    let image = try #require(await Self.value(of: second))
    #expect(image.starts(with: Self.pngSignature))
    #expect(try await sandboxCounter("imageHits", on: sandbox) == 1, "one request for both")
    #expect(loader.statistics.networkLoads == 1 && loader.statistics.coalescedJoins == 1, "\(loader.statistics)")
    await sandbox.stop()
  }

  @Test(
    "Revalidated after the Sandbox redrew its images: a 200 with new bytes replaces the cached ones",
    arguments: TransportKind.allCases)
  func revalidationGetsNewBytes(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let clock = TestClock()
    let loader = try loader(kind, on: clock)
    let url = try imageURL("fay", size: 16, on: sandbox)
    let original = try await loader.data(for: url)

    try await sandbox.control.redrawImages()
    await clock.advance(by: .seconds(7_200))
    let redrawn = try await loader.data(for: url)

    #expect(redrawn != original && redrawn.starts(with: Self.pngSignature))
    #expect(try loader.cache.value(forKey: url.absoluteString)?.data == redrawn, "the new bytes are kept")
    #expect(try await loader.data(for: url) == redrawn, "and served fresh from memory")
    #expect(try await sandboxResponses("GET /images/:file", status: 200, on: sandbox) == 2)
    #expect(try await sandboxResponses("GET /images/:file", status: 304, on: sandbox) == 0)
    #expect(
      loader.statistics.revalidationsModified == 1 && loader.statistics.memoryHits == 1, "\(loader.statistics)")
    await sandbox.stop()
  }

  @Test(
    "A revalidation the Sandbox answers 404 is an error, not the stale bytes", arguments: TransportKind.allCases)
  func revalidationAnswered404(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let clock = TestClock()
    let loader = try loader(kind, on: clock)
    let url = try imageURL("gus", size: 16, on: sandbox)
    _ = try await loader.data(for: url)
    await clock.advance(by: .seconds(7_200))

    try await sandbox.control.addFault(SandboxFault(route: "/images/gus.png", method: "GET", status: 404))
    let error = await #expect(throws: ImageLoaderError.self) { try await loader.data(for: url) }
    #expect(error?.requestFailure?.statusCode == 404)
    #expect(loader.statistics.failures == 1 && loader.statistics.staleServed == 0, "\(loader.statistics)")
    await sandbox.stop()
  }

  @Test(
    "A 304 from the Sandbox to a load that sent no If-None-Match is an error, nothing is kept, and the next load works",
    arguments: TransportKind.allCases)
  func unsolicitedNotModified(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let loader = try loader(kind)
    let url = try imageURL("hal", size: 16, on: sandbox)
    try await sandbox.control.addFault(SandboxFault(route: "/images/hal.png", method: "GET", status: 304, count: 1))

    let error = await #expect(throws: ImageLoaderError.self) { try await loader.data(for: url) }
    #expect(error?.requestFailure?.statusCode == 304)
    #expect(try loader.cache.value(forKey: url.absoluteString) == nil)
    #expect(try await loader.data(for: url).starts(with: Self.pngSignature))
    await sandbox.stop()
  }

  @Test(
    "Cancelling both callers of a slow image cancels its load; a later caller starts a new request",
    arguments: TransportKind.allCases)
  func cancellingEveryCaller(_ kind: TransportKind) async throws {
    // The Sandbox holds the first answer for a second of its clock, which the test moves only at the end.
    let serverClock = HoldingClock()
    let sandbox = try await Sandbox.start(
      SandboxConfiguration(
        faults: [SandboxFault(route: "/images/jo.png", method: "GET", latency: .seconds(1), count: 1)],
        clock: serverClock, logLevel: .warning))
    let loader = try loader(kind)
    let url = try imageURL("jo", size: 16, on: sandbox)

    let first = TaskProbe { try await loader.data(for: url) }
    #expect(await requestHeld(on: serverClock), "the request reached the Sandbox")
    let second = TaskProbe { try await loader.data(for: url) }
    #expect(await eventually { loader.statistics.coalescedJoins == 1 })
    first.cancel()
    #expect(await first.error() is CancellationError)
    second.cancel()
    #expect(await second.error() is CancellationError)
    #expect(await poll(for: .seconds(30)) { loader.statistics.cancelledLoads == 1 }, "\(loader.statistics)")

    let image = try await loader.data(for: url)
    #expect(image.starts(with: Self.pngSignature))
    #expect(
      loader.statistics.networkLoads == 1 && loader.statistics.cancelledLoads == 1 && loader.statistics.failures == 0,
      "\(loader.statistics)")
    await serverClock.advance(by: .seconds(1))
    await sandbox.stop()
  }

  @Test(
    "Served with Cache-Control: no-store, an image is never kept; with no-cache, it is kept and revalidated on every load",
    arguments: TransportKind.allCases)
  func noStoreAndNoCache(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let loader = try loader(kind)
    let noStore = try imageURL("ivy", size: 16, on: sandbox, cache: "no-store")
    let noCache = try imageURL("kit", size: 16, on: sandbox, cache: "no-cache")

    let stored = [try await loader.data(for: noStore), try await loader.data(for: noStore)]
    #expect(stored[0] == stored[1] && stored[0].starts(with: Self.pngSignature))
    #expect(try loader.cache.value(forKey: noStore.absoluteString) == nil, "no-store: never kept")
    #expect(try await sandboxResponses("GET /images/:file", status: 200, on: sandbox) == 2, "asked twice")

    let cached = [try await loader.data(for: noCache), try await loader.data(for: noCache)]
    #expect(cached[0] == cached[1] && cached[0].starts(with: Self.pngSignature))
    #expect(try loader.cache.value(forKey: noCache.absoluteString)?.data == cached[0], "no-cache: kept")
    #expect(try await sandboxResponses("GET /images/:file", status: 304, on: sandbox) == 1, "and revalidated")
    #expect(
      loader.statistics.networkLoads == 3 && loader.statistics.revalidationsNotModified == 1
        && loader.statistics.memoryHits == 0, "\(loader.statistics)")
    await sandbox.stop()
  }

  @Test(
    "The freshness a Sandbox 304 renews is kept on disk: after a restart the image is fresh, with no request",
    arguments: TransportKind.allCases)
  func renewedFreshnessSurvivesARestart(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let clock = TestClock()
    let cacheDirectory = try directory()
    let url = try imageURL("lou", size: 16, on: sandbox)
    let first = try loader(kind, in: cacheDirectory, on: clock)
    let original = try await first.data(for: url)
    await clock.advance(by: .seconds(7_200))
    #expect(try await first.data(for: url) == original)
    #expect(first.statistics.revalidationsNotModified == 1, "renewed for another hour at 2 h")
    try first.cache.disk.close()

    // Half an hour later, stale by the first answer's hour but fresh by the renewed one.
    await clock.advance(by: .seconds(1_800))
    let restarted = try loader(kind, in: cacheDirectory, on: clock)
    #expect(try await restarted.data(for: url) == original)
    #expect(restarted.statistics == .init(diskHits: 1))
    #expect(try await sandboxCounter("imageHits", on: sandbox) == 2, "the load and the revalidation; none since")
    await sandbox.stop()
  }

  @Test(
    "With the Sandbox gone, a stale image's bytes come back, and a load with nothing cached fails as a transport error",
    arguments: TransportKind.allCases)
  func serverGone(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let clock = TestClock()
    let loader = try loader(kind, on: clock)
    let cached = try imageURL("max", size: 16, on: sandbox)
    let uncached = try imageURL("ned", size: 16, on: sandbox)
    let original = try await loader.data(for: cached)
    await clock.advance(by: .seconds(7_200))

    await sandbox.stop()
    #expect(try await loader.data(for: cached) == original, "stale, rather than the failure")
    let error = await #expect(throws: ImageLoaderError.self) { try await loader.data(for: uncached) }
    #expect(error?.requestFailure?.kind == .transport)
    #expect(loader.statistics.staleServed == 1 && loader.statistics.failures == 1, "\(loader.statistics)")
  }

  @Test(
    "A 200 whose body is the Sandbox's JSON error, not an image, fails as notAnImage and is not kept",
    arguments: TransportKind.allCases)
  func jsonIsNotAnImage(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let loader = try loader(kind)
    let url = try imageURL("oz", size: 16, on: sandbox)
    try await sandbox.control.addFault(SandboxFault(route: "/images/oz.png", method: "GET", status: 200, count: 1))

    let error = await #expect(throws: ImageLoaderError.self) { try await loader.data(for: url) }
    #expect(error?.kind == .notAnImage)
    #expect(try loader.cache.value(forKey: url.absoluteString) == nil)
    #expect(try await loader.data(for: url).starts(with: Self.pngSignature), "the next load gets the image")
    await sandbox.stop()
  }

  @Test(
    "A load of another URL does not wait for a slow one the Sandbox holds", arguments: TransportKind.allCases)
  func differentURLsDoNotWait(_ kind: TransportKind) async throws {
    let serverClock = HoldingClock()
    let sandbox = try await Sandbox.start(
      SandboxConfiguration(
        faults: [SandboxFault(route: "/images/pam.png", method: "GET", latency: .seconds(1))], clock: serverClock,
        logLevel: .warning))
    let loader = try loader(kind)
    let slow = try imageURL("pam", size: 16, on: sandbox)

    let held = TaskProbe { try await loader.data(for: slow) }
    #expect(await requestHeld(on: serverClock), "the slow request reached the Sandbox")
    let other = try await loader.data(for: try imageURL("quin", size: 16, on: sandbox))
    #expect(other.starts(with: Self.pngSignature))
    #expect(!held.isFinished)

    await serverClock.advance(by: .seconds(1))
    let image = try #require(await Self.value(of: held))
    #expect(image.starts(with: Self.pngSignature) && image != other)
    #expect(loader.statistics.networkLoads == 2 && loader.statistics.coalescedJoins == 0, "\(loader.statistics)")
    await sandbox.stop()
  }

  /// `probe`'s value, waited for in real time (its answer crosses the loopback).
  private static func value(of probe: TaskProbe<Data>) async -> Data? {
    _ = await poll(for: .seconds(30)) { probe.isFinished }
    return try? probe.result?.get()
  }

  /// The loader's `now` on `clock`, from a fixed epoch.
  private static func date(on clock: TestClock<Duration>) -> @Sendable () -> Date {
    let epoch = Date(timeIntervalSince1970: 1_700_000_000)
    return {
      let (seconds, attoseconds) = TestClock<Duration>.Instant().duration(to: clock.now).components
      return epoch.addingTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
    }
  }

  /// The Sandbox's image `id` at `size`, served with the `Cache-Control` `cache` asks for (`no-store`, `no-cache`).
  private func imageURL(_ id: String, size: Int, on sandbox: RunningSandbox, cache: String? = nil) throws -> URL {
    let query = cache.map { "&cache=\($0)" } ?? ""
    return try #require(URL(string: "\(sandbox.baseURL.absoluteString)/images/\(id).png?size=\(size)\(query)"))
  }

  /// A loader through `kind`, its cache in `directory` (a fresh one by default), its time on `clock` when given.
  private func loader(
    _ kind: TransportKind, in directory: URL? = nil, on clock: TestClock<Duration>? = nil, name: String = #function
  ) throws -> ImageLoader {
    let client = HTTPClient(transport: kind.transport)
    let directory = try directory ?? self.directory(name)
    guard let clock else { return try ImageLoader(client: client, directory: directory) }
    return try ImageLoader(client: client, directory: directory, now: Self.date(on: clock))
  }

  private func directory(_ name: String = #function) throws -> URL {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("keel-integration-images", isDirectory: true)
      .appendingPathComponent("\(name.filter(\.isLetter))-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }
}

extension ImageLoaderStatistics {
  /// Statistics with only disk hits.
  fileprivate init(diskHits: Int) {
    self.init()
    self.diskHits = diskHits
  }
}
