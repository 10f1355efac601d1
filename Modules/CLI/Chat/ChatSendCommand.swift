import ArgumentParser
import Chat
import Domain
import Foundation
import KeelErrors
import Networking

/// `keel chat send general "Hello" --image cat.png --file notes.pdf`: one message, through the durable outbox.
struct ChatSendCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "send",
    abstract: "Send a message with up to 5 images and 5 files, and wait until the server has it.",
    discussion: """
      The message is kept in the outbox in --data-dir first. Exits 0 once the server has it; 65 for a message \
      that cannot be sent (more than 5 images, an image that is not a PNG, JPEG, GIF or WebP image or is over \
      8 MiB, more than 5 files, a file over 25 MiB, files over 50 MiB together, a text over 10,000 characters) and \
      66 for a missing image or file, before anything is sent; 69 when the server cannot be reached within \
      --timeout, and then the message waits in the outbox for the next chat command. With --reply-to, a message \
      the conversation does not have exits 67. With a file, a progress bar shows on standard error when it is a \
      terminal.
      """)

  @Argument(
    help: "The conversation: a channel (general), a DM partner (@ada; a DM room is opened with a member if none yet).")
  var conversation: String

  @Argument(help: "The message's text; may be empty with an image or a file.")
  var text: String

  @Option(name: .customLong("image"), help: "An image to attach (PNG, JPEG, GIF or WebP, 8 MiB at most); up to 5.")
  var images: [String] = []

  @Option(name: .customLong("file"), help: "A file of any type to attach (25 MiB at most, 50 MiB together); up to 5.")
  var files: [String] = []

  @Option(name: .customLong("reply-to"), help: "The id of a message of the conversation this one replies to.")
  var replyTo: String?

  @Option(help: "Seconds to wait for the server to take the message.")
  var timeout: Double = 30

  @OptionGroup var workspace: WorkspaceOption
  @OptionGroup var global: GlobalOptions

  func validate() throws {
    guard timeout > 0, timeout <= 3_600 else { throw ValidationError("--timeout is a number of seconds, 0 to 3600.") }
  }

  func run() async throws {
    try await global.runChat(check: checkImages) { context in
      let images = try checkedImages()
      let files = try checked(self.files, what: "file")
      let chosen = try await context.workspace(workspace.workspace)
      let target = try await context.conversation(conversation, in: chosen, openingDirectMessage: true)
      guard target.joined else {
        throw CommandFailure(
          .invalidInput, "You have not joined #\(target.name), so you cannot send to it; nothing was sent.")
      }
      let pending: Message
      if let replyTo {
        let parent = try await context.message(replyTo, in: target)
        pending = try await context.chat.reply(text, images: images, files: files, to: parent)
      } else {
        pending = try await context.chat.send(text, images: images, files: files, to: target.id)
      }
      let bar = files.isEmpty ? nil : Self.showProgress(of: pending, in: context.chat)
      let settled = await outcome(of: pending, in: context.chat)
      bar?.cancel()
      await bar?.value
      switch settled.state {
      case .sent:
        var names = await context.nicknames(in: chosen)
        names[context.me.id] = context.me.nickname
        let row = MessageRow(settled, names: names, baseURL: context.chat.baseURL)
        let place = target.kind == .channel ? "#\(target.name)" : "@\(target.name)"
        try context.command.output.result(
          row,
          human: "Sent to \(Output.printable(place)) (\(settled.id ?? "?"))"
            + Self.attachments(images: images.count, files: files.count))
      case .failed:
        throw CommandFailure(
          .server, "The server refused the message: \((settled.failureReason ?? "no reason given").clause).")
      case .pending:
        let problem = context.chat.outboxProblem.map { ": \($0.clause)" } ?? ""
        throw CommandFailure(
          .network,
          "The server did not take the message within \(Int(timeout)) s\(problem). It waits in the outbox in "
            + "\(global.dataDirectory.path) and goes with the next keel chat command.")
      }
    }
  }

  /// Fails as ``checkedImages()`` does, or as the chat would refuse the message, before anything else happens.
  private func checkImages() throws {
    try ChatService.validate(text, images: try checkedImages(), files: try checked(files, what: "file"))
  }

  /// The image files, each present and a regular file, at most five; checked before anything is sent.
  private func checkedImages() throws -> [URL] {
    let most = ChatService.messageLimits.maxFiles
    guard images.count <= most else {
      throw CommandFailure(
        .invalidInput, "A message carries at most \(most) images, not \(images.count); nothing was sent.")
    }
    return try checked(images, what: "image")
  }

  /// `paths`, each present, a regular file and readable (66 otherwise); checked before anything is sent.
  private func checked(_ paths: [String], what: String) throws -> [URL] {
    try paths.map { path in
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
        throw CommandFailure(.noInput, "No \(what == "file" ? "" : what + " ")file at \(path); nothing was sent.")
      }
      guard FileManager.default.isReadableFile(atPath: path) else {
        throw CommandFailure(.noInput, "The \(what) \(path) cannot be read; nothing was sent.")
      }
      return URL(fileURLWithPath: path)
    }
  }

  /// ` with 2 images and 1 file.`, or `.` with neither.
  private static func attachments(images: Int, files: Int) -> String {
    let parts = [(images, "image"), (files, "file")].filter { $0.0 > 0 }.map {
      "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")"
    }
    return parts.isEmpty ? "." : " with " + parts.joined(separator: " and ") + "."
  }

  /// Draws the upload of `pending` on standard error (when it is a terminal) until it settles or is cancelled.
  private static func showProgress(of pending: Message, in chat: ChatService) -> Task<Void, Never> {
    Task {
      var bar = TransferBar("Uploading")
      for await step in chat.uploadProgress(of: pending) {
        if Task.isCancelled { break }
        bar.show(step)
      }
      bar.finish()
    }
  }

  /// `pending` once the outbox has sent or failed it, or as it is after --timeout.
  private func outcome(of pending: Message, in chat: ChatService) async -> Message {
    await withTaskGroup(of: Message.self) { group in
      group.addTask { await chat.outcome(of: pending) }
      group.addTask {
        try? await Task.sleep(for: .milliseconds(Int64(timeout * 1_000)))
        return pending
      }
      let first = await group.next() ?? pending
      group.cancelAll()
      return first
    }
  }
}
