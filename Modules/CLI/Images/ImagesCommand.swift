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

/// `keel images get URL`: loads an image (disk cache first) and says where it came from.
struct ImagesGetCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "get",
    abstract: "Load an image, from the disk cache when fresh there, else from the server.",
    discussion: "URL is absolute, or a path such as /images/42.png?size=64 on the target server.")

  @Argument(help: "The image's URL, or a path on the target server.")
  var url: String

  @Option(help: "Write the image to this file.")
  var output: String?

  @OptionGroup var global: GlobalOptions

  private struct Loaded: Encodable {
    let url: String
    let bytes: Int
    let source: String
    let file: String?
  }

  func run() async throws {
    try await global.run { context in
      let loader = try context.dependencies.images
      let address = try resolved(context)
      let before = loader.statistics
      let data = try await loader.data(for: address)
      let after = loader.statistics
      let source =
        after.memoryHits > before.memoryHits ? "memory" : after.diskHits > before.diskHits ? "disk" : "network"
      if let output {
        do {
          try data.write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
          throw CommandFailure(.localStorage, "Cannot write \(output): \(error.localizedDescription.clause).")
        }
      }
      try context.output.result(
        Loaded(url: address.absoluteString, bytes: data.count, source: source, file: output),
        human: "Loaded \(data.count) bytes from the \(source)" + (output.map { ", written to \($0)." } ?? "."))
    }
  }

  private func resolved(_ context: CommandContext) throws -> URL {
    if let absolute = URL(string: url), let scheme = absolute.scheme {
      guard ["http", "https"].contains(scheme.lowercased()), absolute.host?.isEmpty == false else {
        throw CommandFailure(.invalidInput, "'\(url)' is not an http(s) URL with a host. Nothing was sent.")
      }
      return absolute
    }
    guard url.hasPrefix("/"), let relative = URL(string: url) else {
      throw CommandFailure(
        .invalidInput, "'\(url)' is neither an http(s) URL nor a path such as /images/1.png. Nothing was sent.")
    }
    guard let base = context.target.baseURL else {
      throw CommandFailure(.usage, "A path such as \(url) needs a server: give a full URL, or --base-url.")
    }
    return URL(string: relative.absoluteString, relativeTo: base)?.absoluteURL ?? base
  }
}

/// `keel images stats`: what the disk cache holds.
struct ImagesStatsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "stats", abstract: "Show how many images the disk cache holds, and their size.")

  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await global.run { context in
      let usage = try context.dependencies.images.diskUsage
      try context.output.result(
        ImageCacheUsage(images: usage.count, bytes: usage.bytes),
        human: "\(usage.count) images, \(usage.bytes) bytes on disk.")
    }
  }
}

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
