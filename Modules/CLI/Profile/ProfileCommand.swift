import ArgumentParser
import Chat
import Domain
import Foundation
import KeelConcurrency

/// `keel profile`: the signed-in user's profile, or a member's, and changes to one's own.
struct ProfileCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "profile", abstract: "Show a profile, or change your nickname and image.",
    subcommands: [Show.self, Set.self])

  /// A profile, as `--json` prints it.
  struct Profile: Encodable {
    let id: String
    let nickname: String
    let email: String?
    /// The image's path on the chat backend (`keel images get` loads it), or `nil`.
    let profileImage: String?

    init(_ user: SessionUser) {
      id = user.id
      nickname = user.nickname
      email = user.email
      profileImage = user.profileImage
    }

    init(_ member: Member) {
      id = member.id
      nickname = member.nickname
      email = member.email
      profileImage = member.profileImage
    }

    enum CodingKeys: String, CodingKey {
      case id, nickname, email
      case profileImage = "profile_image"
    }

    var lines: String {
      "\(nickname)\(email.map { " <\($0)>" } ?? "") (\(id))\n" + "image: \(profileImage ?? "none")"
    }
  }

  /// `keel profile show [@NAME]`: one's own profile as the server has it, or a member's.
  struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Show your profile, or a member's of the workspace (@NAME: a nickname, email or id).")
    @Argument(help: "A member, as @NAME; yourself when left out.") var member: String?
    @OptionGroup var workspace: WorkspaceOption
    @OptionGroup var global: GlobalOptions

    func validate() throws {
      if let member, !member.hasPrefix("@") || member.count < 2 {
        throw ValidationError("Name a member as @NAME (a nickname, email or id): \"\(member)\" has no @.")
      }
    }

    func run() async throws {
      guard let member else {
        try await global.run { context in
          try context.requireBackend(for: "show the profile")
          guard context.dependencies.sessions.currentUser != nil else {
            throw CommandFailure(.auth, "Nobody is signed in: sign in with keel auth login --email EMAIL.")
          }
          let user = try await context.dependencies.sessions.me()
          try context.output.result(Profile(user), human: Profile(user).lines)
        }
        return
      }
      try await global.runChat { context in
        let chosen = try await context.workspace(workspace.workspace)
        let found = try await context.chat.member(named: String(member.dropFirst()), in: chosen.id)
        try context.command.output.result(Profile(found), human: Profile(found).lines)
      }
    }
  }

  /// `keel profile set [--nickname N] [--image PATH]`: changes one's own profile.
  struct Set: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Change your nickname (1 to 64 characters), your image (PNG, JPEG, GIF or WebP, 8 MiB), or both.",
      discussion: """
        The image uploads with a progress bar on standard error when it is a terminal. A missing image: 66; one that \
        is not an image, too large, or a bad nickname: 65; each before anything is sent.
        """)
    @Option(help: "The new nickname.") var nickname: String?
    @Option(help: "The new profile image's file.") var image: String?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
      guard nickname != nil || image != nil else {
        throw ValidationError("Give --nickname, --image, or both.")
      }
    }

    func run() async throws {
      try await global.run { context in
        try context.requireBackend(for: "change the profile")
        let sessions = context.dependencies.sessions
        guard sessions.currentUser != nil else {
          throw CommandFailure(.auth, "Nobody is signed in: sign in with keel auth login --email EMAIL.")
        }
        let file = image.map { URL(fileURLWithPath: $0) }
        if let file, !FileManager.default.isReadableFile(atPath: file.path) {
          throw CommandFailure(.noInput, "Cannot read the image \(file.path); nothing was sent.")
        }
        // The nickname's rule first, then the image (whose bytes are checked before it goes), then the nickname: a bad
        // value of either is refused before anything changes on the server.
        if let nickname, !(1...64).contains(nickname.trimmingCharacters(in: .whitespacesAndNewlines).count) {
          throw CommandFailure(.invalidInput, "A nickname has 1 to 64 characters once trimmed; nothing was sent.")
        }
        var user: SessionUser?
        if let file {
          let bar = Locked(TransferBar("Uploading"))
          user = try await sessions.updateProfileImage(file) { step in bar.withLock { $0.show(step) } }
          bar.withLock { $0.finish() }
        }
        if let nickname { user = try await sessions.updateNickname(nickname) }
        guard let user else { return }
        try context.output.result(Profile(user), human: "Profile saved:\n" + Profile(user).lines)
      }
    }
  }
}
