import ArgumentParser
import Chat
import Domain
import Foundation

/// `keel images get URL`: loads an image (disk cache first) and says where it came from.
struct ImagesGetCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "get",
    abstract: "Load an image, from the disk cache when fresh there, else from the server.",
    discussion: """
      URL is absolute, or a path such as /images/42.png?size=64 on the target server. A chat image \
      (/v1/chat-images/ID) or a profile image (/v1/profile-images/ID) is loaded as the user `keel auth login` signed \
      in, through that account's own cache: 67 when they are not a member of its conversation.
      """)

  @Argument(help: "The image's URL, or a path on the target server.")
  var url: String

  @Option(
    help: ArgumentHelp(
      "Write the image to this file; - writes it to standard output.",
      discussion: "A regular file is replaced whole (a new file renamed over it); a device or a FIFO is written "
        + "to; a symbolic link is followed."))
  var output: String?

  @OptionGroup var global: GlobalOptions

  private struct Loaded: Encodable {
    let url: String
    let bytes: Int
    let source: String
    let file: String?
  }

  func validate() throws {
    if output == "-" && global.json {
      throw ValidationError("--output - writes the image to standard output, where --json would go: choose one.")
    }
    if output?.isEmpty == true { throw ValidationError("--output is empty; give a file, or - for standard output.") }
  }

  func run() async throws {
    try await global.run { context in
      let address = try resolved(context)
      guard Self.isChatImage(address, on: context.target.baseURL) else {
        return try await load(address, with: context.dependencies.images, context)
      }
      guard context.dependencies.sessions.currentUser != nil else {
        throw CommandFailure(
          .auth, "A chat image is for a signed-in member: sign in with keel auth login --email EMAIL.")
      }
      do {
        try await load(address, with: context.dependencies.chat.imageLoader, context)
      } catch {
        await context.dependencies.shutDown()
        throw error
      }
      await context.dependencies.shutDown()
    }
  }

  /// Whether `address` is one of the chat backend's images, which need the session's token.
  private static func isChatImage(_ address: URL, on base: URL?) -> Bool {
    guard let base, SandboxKeyTransport.sameOrigin(address, base) else { return false }
    return ["/v1/chat-images/", "/v1/profile-images/"].contains { address.path.hasPrefix($0) }
  }

  /// Loads `address` through `loader`, writes it where `--output` says, and says where it came from.
  private func load(_ address: URL, with loader: ImageLoader, _ context: CommandContext) async throws {
    let before = loader.statistics
    let data = try await loader.data(for: address)
    let after = loader.statistics
    let source =
      after.memoryHits > before.memoryHits ? "memory" : after.diskHits > before.diskHits ? "disk" : "network"
    if let output { try OutputFile.write(data, to: output) }
    let loaded = Loaded(url: address.absoluteString, bytes: data.count, source: source, file: output)
    let human =
      "Loaded \(counted(data.count, "byte")) from the \(source)" + (output.map { ", written to \($0)." } ?? ".")
    // Standard output holds the image itself: the summary goes to standard error.
    if output == "-" { context.output.note(human) } else { try context.output.result(loaded, human: human) }
  }

  private func resolved(_ context: CommandContext) throws -> URL {
    if let absolute = URL(string: url), let scheme = absolute.scheme {
      guard ["http", "https"].contains(scheme.lowercased()), absolute.host?.isEmpty == false else {
        throw CommandFailure(.invalidInput, "'\(url)' is not an http(s) URL with a host. Nothing was sent.")
      }
      return absolute
    }
    // `//host/x.png` is a reference to another server, not a path on this one.
    guard url.hasPrefix("/"), !url.hasPrefix("//"), !url.hasPrefix("/\\"), let relative = URL(string: url) else {
      throw CommandFailure(
        .invalidInput, "'\(url)' is neither an http(s) URL nor a path such as /images/1.png. Nothing was sent.")
    }
    guard let base = context.target.baseURL else {
      throw CommandFailure(.usage, "A path such as \(url) needs a server: give a full URL, or --base-url.")
    }
    guard let resolved = URL(string: relative.absoluteString, relativeTo: base)?.absoluteURL,
      SandboxKeyTransport.sameOrigin(resolved, base)
    else {
      throw CommandFailure(.invalidInput, "'\(url)' does not stay on \(base.absoluteString). Nothing was sent.")
    }
    return resolved
  }
}
