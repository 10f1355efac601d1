import ArgumentParser
import Domain
import Foundation

/// `keel images`: the image loader and its memory and disk cache.
struct ImagesCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "images",
    abstract: "Load images through the cache, show the cache, empty it.",
    subcommands: [ImagesGetCommand.self, ImagesStatsCommand.self, ImagesClearCommand.self]
  )
}

/// The disk cache's size, as `--json` prints it.
struct ImageCacheUsage: Encodable {
  let images: Int
  let bytes: Int
}
