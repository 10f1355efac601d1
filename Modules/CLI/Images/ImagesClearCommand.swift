import ArgumentParser
import Domain
import Foundation

/// `keel images clear`: empties the cache.
struct ImagesClearCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "clear", abstract: "Empty the image cache, memory and disk.")

  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await global.run(sends: false) { context in
      let loader = try context.dependencies.images
      let usage = loader.diskUsage
      try loader.removeAll()
      try context.output.result(
        ImageCacheUsage(images: usage.count, bytes: usage.bytes),
        human: "Removed \(counted(usage.count, "image")), \(counted(usage.bytes, "byte")).")
    }
  }
}
