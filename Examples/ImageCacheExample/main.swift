/// Loading an image with `ImageLoader` through its two cache levels: the first load comes from the network and is
/// kept in memory and on disk, the second comes from memory, and after `clearMemory()` (what an app does under memory
/// pressure) the third comes from disk. The server is asked once in all. An embedded Sandbox serves the image.
import Domain
import ExampleSupport
import Foundation
import Logging
import NIOTransports
import Sandbox

let start = ContinuousClock.now
let sandbox = await startSandbox(SandboxConfiguration(logLevel: .warning))
let control = sandbox.control
let dataDirectory = FileManager.default.temporaryDirectory
  .appendingPathComponent("keel-image-cache-example-\(UUID().uuidString)", isDirectory: true)

var failure: (any Error)?
do {
  // The composition root builds the loader; its disk level goes in the data directory's `images` folder.
  let dependencies = Dependencies.live(
    configuration: KeelConfiguration(dataDirectory: dataDirectory, logLevel: .warning, transport: NIOHTTPTransport()))
  let images = try dependencies.images
  let url = sandbox.baseURL.appending(path: "images/ada.png").appending(queryItems: [.init(name: "size", value: "128")])
  let clock = ContinuousClock()

  var began = clock.now
  let first = try await images.data(for: url)
  let fromNetwork = images.statistics
  let size = pngSize(first).map { "\($0.width)×\($0.height) PNG" } ?? "not a PNG"
  step(
    "data(for: \(url.lastPathComponent))",
    "\(first.count) bytes, \(size), from the network in \(readable(began.duration(to: clock.now)))")
  try check(pngSize(first)?.width == 128, "The first load did not return the 128-pixel PNG.")
  try check(fromNetwork.networkLoads == 1, "The first load did not come from the network: \(fromNetwork).")

  began = clock.now
  let second = try await images.data(for: url)
  let fromMemory = images.statistics
  step("data(for:) again", "\(second.count) bytes from memory in \(readable(began.duration(to: clock.now)))")
  try check(second == first, "The second load returned other bytes than the first.")
  try check(fromMemory.memoryHits == 1, "The second load did not come from memory: \(fromMemory).")

  images.clearMemory()
  began = clock.now
  let third = try await images.data(for: url)
  let fromDisk = images.statistics
  step("clearMemory(), then data(for:)", "\(third.count) bytes from disk in \(readable(began.duration(to: clock.now)))")
  try check(third == first, "The load after clearMemory() returned other bytes than the first.")
  try check(fromDisk.diskHits == 1, "The load after clearMemory() did not come from disk: \(fromDisk).")

  let statistics = images.statistics
  step(
    "statistics",
    "network loads \(statistics.networkLoads), memory hits \(statistics.memoryHits), disk hits \(statistics.diskHits), "
      + "revalidations \(statistics.revalidations), failures \(statistics.failures)")
  let imageHits = try await control.statistics().counter("imageHits")
  step("GET /_sandbox/stats", "the image route answered \(imageHits) request")
  try check(imageHits == 1, "The server was asked \(imageHits) times for the image; once should do.")
} catch {
  failure = error
}

await sandbox.stop()
try? FileManager.default.removeItem(at: dataDirectory)
finish(failure, since: start)

/// The width and height in a PNG's header, or `nil` when `data` is not a PNG.
func pngSize(_ data: Data) -> (width: Int, height: Int)? {
  let bytes = [UInt8](data)
  guard bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
  func integer(at offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
  return (integer(at: 16), integer(at: 20))
}
