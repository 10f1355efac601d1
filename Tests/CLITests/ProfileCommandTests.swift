import Foundation
import Sandbox
import TestSupport
import Testing

/// `keel auth signup` and `keel profile show|set`, run as a user runs them against a served Sandbox.
@Suite("keel auth signup and keel profile", .serialized, .timeLimit(.minutes(10)))
struct ProfileCommandTests {
  @Test("Sign up (a taken email 70, bad input 65), then show and change the profile; errors before sending")
  func signUpAndProfile() async throws {
    let sandbox = try await ChatCommandTests.servedSandbox()
    let directory = try Keel.dataDirectory("signup")
    defer { try? FileManager.default.removeItem(at: directory) }
    let options = Keel.options(sandbox, directory)

    let nobody = try await Keel.run(["profile", "show"] + options)
    #expect(nobody.status == 77, "\(nobody.errors)")
    let signUp = try await Keel.run(
      ["auth", "signup", "--email", "newt@keel.dev", "--nickname", "Newt", "--password", "newt-password"] + options)
    #expect(signUp.status == 0, "\(signUp.errors)")
    #expect(signUp.lines == ["Signed up and in as Newt <newt@keel.dev> (member-newt)."])
    let taken = try await Keel.run(
      ["auth", "signup", "--email", "NEWT@keel.dev", "--password", "other-password"] + options)
    #expect(taken.status == 70 && taken.errors.contains("E409"), "\(taken.errors)")
    let short = try await Keel.run(["auth", "signup", "--email", "x@keel.dev", "--password", "short"] + options)
    #expect(short.status == 65, "\(short.errors)")

    let shown = try await Keel.run(["profile", "show"] + options)
    #expect(shown.status == 0, "\(shown.errors)")
    #expect(shown.lines == ["Newt <newt@keel.dev> (member-newt)", "image: none"])

    let missing = try await Keel.run(
      ["profile", "set", "--image", directory.appendingPathComponent("no.png").path] + options)
    #expect(missing.status == 66, "\(missing.errors)")
    let notImage = directory.appendingPathComponent("notes.png")
    try Data("just text".utf8).write(to: notImage)
    let refused = try await Keel.run(["profile", "set", "--image", notImage.path] + options)
    #expect(refused.status == 65, "\(refused.errors)")
    let nothing = try await Keel.run(["profile", "set"] + options)
    #expect(nothing.status == 64, "\(nothing.errors)")

    let image = directory.appendingPathComponent("avatar.png")
    try (Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 5, count: 200_000)).write(to: image)
    let badName = try await Keel.run(["profile", "set", "--nickname", "  ", "--image", image.path] + options)
    #expect(badName.status == 65, "\(badName.errors)")
    #expect(try await Keel.run(["profile", "show"] + options).lines.last == "image: none", "nothing was sent")
    let set = try await Keel.run(
      ["profile", "set", "--nickname", "Newt Two", "--image", image.path, "--json"] + options)
    #expect(set.status == 0, "\(set.errors)")
    let saved = try Keel.json(set)
    #expect(saved["nickname"] as? String == "Newt Two" && saved["id"] as? String == "member-newt")
    let path = try #require(saved["profile_image"] as? String)
    #expect(path.hasPrefix("/v1/profile-images/"))
    let again = try await Keel.run(["profile", "show", "--json"] + options)
    #expect(try Keel.json(again)["profile_image"] as? String == path)
    await sandbox.stop()
  }

  @Test("A member's profile by @NAME; nobody by that name is 67, a name without @ is 64")
  func memberProfile() async throws {
    let sandbox = try await ChatCommandTests.servedSandbox()
    let directory = try Keel.dataDirectory("member")
    defer { try? FileManager.default.removeItem(at: directory) }
    let options = Keel.options(sandbox, directory)
    try await ChatCommandTests.login("demo@keel.dev", options)

    let ada = try await Keel.run(["profile", "show", "@ada"] + options)
    #expect(ada.status == 0, "\(ada.errors)")
    #expect(ada.lines == ["ada <ada@keel.dev> (user-ada)", "image: none"])
    let nobody = try await Keel.run(["profile", "show", "@nobody"] + options)
    #expect(nobody.status == 67, "\(nobody.errors)")
    let bare = try await Keel.run(["profile", "show", "ada"] + options)
    #expect(bare.status == 64, "\(bare.errors)")
    await sandbox.stop()
  }
}
