import ArgumentParser
import Chat
import Domain
import Foundation
import KeelConcurrency

/// `keel chat download /v1/chat-files/f12 --output notes.pdf`: a message's file (or image), streamed to disk.
struct ChatDownloadCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "download",
    abstract: "Download a file or image of a message to a file, with progress.",
    discussion: """
      URL is a message's file or image as `history --json` shows it ("files"[…]."url", "images"[…]), absolute or a \
      path on the chat backend. It is fetched as the signed-in user, streamed to disk, kept in --data-dir for the \
      next download of the same file (which asks the server only whether it changed), and written to --output whole \
      or not at all (a new owner-only file renamed over it). A progress bar shows on standard error when it is a \
      terminal. 67 when the server has no such file for the user (not a member of its conversation, or its message \
      deleted); 65 for a URL not on the chat backend.
      """)

  @Argument(help: "The file's URL, or its path on the chat backend.")
  var url: String

  @Option(help: "The file to write.")
  var output: String

  @OptionGroup var global: GlobalOptions

  private struct Downloaded: Encodable {
    let url: String
    let bytes: Int64
    let file: String
  }

  func validate() throws {
    if output.isEmpty || output == "-" { throw ValidationError("--output is the file to write.") }
  }

  func run() async throws {
    try await global.runChat { context in
      let destination = URL(fileURLWithPath: output)
      var bar = TransferBar("Downloading")
      let shown = Locked(bar)
      try await context.chat.download(url, to: destination) { step in
        shown.withLock { $0.show(step) }
      }
      bar = shown.withLock { $0 }
      bar.finish()
      let size =
        ((try? FileManager.default.attributesOfItem(atPath: destination.path))?[.size] as? NSNumber)?.int64Value ?? 0
      try context.command.output.result(
        Downloaded(
          url: URL(string: url, relativeTo: context.chat.baseURL)?.absoluteString ?? url, bytes: size, file: output),
        human: "Downloaded \(size) bytes to \(Output.printable(output)).")
    }
  }
}
