import ArgumentParser
import Domain
import Foundation

/// `keel images clear`: empties the cache.
struct ImagesClearCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "clear", abstract: "Empty the image cache, memory and disk.")

  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await global.run { context in
      let loader = try context.dependencies.images
      let usage = loader.diskUsage
      try loader.removeAll()
      try context.output.result(
        ImageCacheUsage(images: usage.count, bytes: usage.bytes),
        human: "Removed \(usage.count) images, \(usage.bytes) bytes.")
    }
  }
}
