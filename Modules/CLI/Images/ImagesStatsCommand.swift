import ArgumentParser
import Domain
import Foundation

/// `keel images stats`: what the disk cache holds.
struct ImagesStatsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "stats", abstract: "Show how many images the disk cache holds, and their size.")

  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await global.run(sends: false) { context in
      let usage = try context.dependencies.images.diskUsage
      try context.output.result(
        ImageCacheUsage(images: usage.count, bytes: usage.bytes),
        human: "\(counted(usage.count, "image")), \(counted(usage.bytes, "byte")) on disk.")
    }
  }
}
