import Chat
import Domain
import Features
import FeaturesTesting
import Foundation
import KeelConcurrency
import Networking
import TestSupport
import Testing

/// A profile server the test drives: records each change, holds answers at a gate, and reports an upload's progress
/// in the steps the test gives.
private final class FakeProfile: Sendable {
  let calls = Recorder<String>()
  let gate = Gate()
  let failure = Locked<(any Error & Sendable)?>(nil)
  let steps = [0.25, 0.5, 1.0]

  var client: ProfileClient {
    ProfileClient(
      updateNickname: { [self] nickname in
        calls.record("nickname \(nickname)")
        await gate.pass()
        if let failure = failure.withLock({ $0 }) { throw failure }
        return SessionUser(id: "user-demo", email: "demo@keel.dev", nickname: nickname)
      },
      updateImage: { [self] file, progress in
        calls.record("image \(file.lastPathComponent)")
        for step in steps { progress(step) }
        await gate.pass()
        if let failure = failure.withLock({ $0 }) { throw failure }
        return SessionUser(
          id: "user-demo", email: "demo@keel.dev", nickname: "demo", profileImage: "/v1/profile-images/1")
      })
  }
}

/// ProfileFeature and SignUpFeature through exhaustive TestStores on fakes: every change, its progress, its refusal,
/// repeated taps. `SettingsIntegrationTests` runs them against the Sandbox.
@Suite(.timeLimit(.minutes(3))) @MainActor struct ProfileFeatureTests {
  @Test("The nickname changes once it is valid; the parent hears the new user")
  func nickname() async {
    let profile = FakeProfile()
    let store = TestStore(
      initialState: ProfileFeature.State(me: FakeSessions.demo), reducer: ProfileFeature(client: profile.client))
    await store.send(.view(.nicknameChanged(" "))) { $0.nickname = " " }
    await store.send(.view(.saveNicknameTapped)) {
      $0.failure = ScreenFailure(.invalidInput, "A nickname has 1 to 64 characters.")
    }
    await store.send(.view(.nicknameChanged("Demo D."))) { $0.nickname = "Demo D." }
    await store.send(.view(.saveNicknameTapped)) {
      $0.failure = nil
      $0.running = .savingNickname
    }
    let renamed = SessionUser(id: "user-demo", email: "demo@keel.dev", nickname: "Demo D.")
    await store.receiveFed(.response(.saved(renamed))) {
      $0.running = nil
      $0.subject = .me(renamed)
    }
    await store.receiveFed(.delegate(.changed(renamed)))
    #expect(profile.calls.elements == ["nickname Demo D."])
    await store.finish()
  }

  @Test("The image uploads with its progress, in order, before the answer; a second pick meanwhile is ignored")
  func image() async {
    let profile = FakeProfile()
    profile.gate.close()
    let store = TestStore(
      initialState: ProfileFeature.State(me: FakeSessions.demo), reducer: ProfileFeature(client: profile.client))
    let file = URL(fileURLWithPath: "/tmp/avatar.png")
    await store.send(.view(.imagePicked(file))) {
      $0.running = .uploadingImage
      $0.uploadProgress = 0
    }
    await store.send(.view(.imagePicked(URL(fileURLWithPath: "/tmp/other.png"))))
    await store.send(.view(.saveNicknameTapped))
    await store.receiveFed(.internal(.uploadProgressed(0.25))) { $0.uploadProgress = 0.25 }
    await store.receiveFed(.internal(.uploadProgressed(0.5))) { $0.uploadProgress = 0.5 }
    await store.receiveFed(.internal(.uploadProgressed(1))) { $0.uploadProgress = 1 }
    profile.gate.open()
    let pictured = SessionUser(
      id: "user-demo", email: "demo@keel.dev", nickname: "demo", profileImage: "/v1/profile-images/1")
    await store.receiveFed(.response(.saved(pictured))) {
      $0.running = nil
      $0.uploadProgress = nil
      $0.subject = .me(pictured)
    }
    await store.receiveFed(.delegate(.changed(pictured)))
    #expect(store.state.profileImage == "/v1/profile-images/1")
    #expect(profile.calls.elements == ["image avatar.png"])
    await store.finish()
  }

  @Test("A refused upload shows why; a member's profile changes nothing")
  func refusedAndMember() async {
    let profile = FakeProfile()
    profile.failure.withLock { $0 = SessionError(.invalidInput, "not.png is not a PNG, JPEG, GIF or WebP image.") }
    let store = TestStore(
      initialState: ProfileFeature.State(me: FakeSessions.demo), reducer: ProfileFeature(client: profile.client))
    await store.send(.view(.imagePicked(URL(fileURLWithPath: "/tmp/not.png")))) {
      $0.running = .uploadingImage
      $0.uploadProgress = 0
    }
    await store.receiveFed(.internal(.uploadProgressed(0.25))) { $0.uploadProgress = 0.25 }
    await store.receiveFed(.internal(.uploadProgressed(0.5))) { $0.uploadProgress = 0.5 }
    await store.receiveFed(.internal(.uploadProgressed(1))) { $0.uploadProgress = 1 }
    let failure = ScreenFailure(.invalidInput, "not.png is not a PNG, JPEG, GIF or WebP image.")
    await store.receiveFed(.response(.failed(failure))) {
      $0.running = nil
      $0.uploadProgress = nil
      $0.failure = failure
    }
    await store.finish()

    let member = TestStore(
      initialState: ProfileFeature.State(member: FakeChat.ada), reducer: ProfileFeature(client: profile.client))
    #expect(!member.state.isMine && member.state.shownNickname == "ada")
    await member.send(.view(.nicknameChanged("hacked"))) { $0.nickname = "hacked" }
    await member.send(.view(.saveNicknameTapped))
    await member.send(.view(.imagePicked(URL(fileURLWithPath: "/tmp/avatar.png"))))
    #expect(profile.calls.elements == ["image not.png"])
  }

  // MARK: - Sign-up

  @Test("Sign-up checks the form before sending; signed up, the parent hears the new user")
  func signUp() async {
    let sessions = FakeSessions()
    let store = TestStore(initialState: SignUpFeature.State(), reducer: SignUpFeature(client: sessions.client))
    await store.send(.view(.emailChanged("new@"))) { $0.email = "new@" }
    await store.send(.view(.passwordChanged("short"))) { $0.password = "short" }
    await store.send(.view(.nicknameChanged(String(repeating: "n", count: 65)))) {
      $0.nickname = String(repeating: "n", count: 65)
    }
    await store.send(.view(.signUpTapped)) {
      $0.emailError = "Enter an email address such as name@example.com."
      $0.passwordError = "A password has 8 to 256 characters."
      $0.nicknameError = "A nickname has at most 64 characters."
    }
    #expect(sessions.signUps.elements.isEmpty, "nothing sent")

    sessions.signUpGate.close()
    await store.send(.view(.emailChanged("new@keel.dev"))) {
      $0.email = "new@keel.dev"
      $0.emailError = nil
    }
    await store.send(.view(.passwordChanged("a long password"))) {
      $0.password = "a long password"
      $0.passwordError = nil
    }
    await store.send(.view(.nicknameChanged(""))) {
      $0.nickname = ""
      $0.nicknameError = nil
    }
    await store.send(.view(.signUpTapped)) { $0.isSigningUp = true }
    await store.send(.view(.signUpTapped))  // ignored while the first runs
    sessions.signUpGate.open()
    let user = SessionUser(id: "user-new", email: "new@keel.dev", nickname: "new")
    await store.receiveFed(.response(.signedUp(user))) {
      $0.isSigningUp = false
      $0.password = ""
    }
    await store.receiveFed(.delegate(.signedUp(user)))
    #expect(sessions.signUps.elements == [.init(email: "new@keel.dev", password: "a long password", nickname: nil)])
    await store.finish()
  }

  @Test("An email that has an account is the server's E409, shown as a conflict; the form keeps what was typed")
  func signUpTaken() async {
    let sessions = FakeSessions()
    var error = NetworkError(.server, "The server answered 409 (E409).")
    error.statusCode = 409
    error.serverError = ServerError(code: "E409", message: "taken", status: 409)
    let failure = RequestFailure(error)
    sessions.signUpFailure.withLock {
      $0 = SessionError(.requestFailed, "Cannot sign up: \(failure)", requestFailure: failure)
    }
    var form = SignUpFeature.State()
    form.email = "demo@keel.dev"
    form.password = "demo-password"
    let store = TestStore(initialState: form, reducer: SignUpFeature(client: sessions.client))
    await store.send(.view(.signUpTapped)) { $0.isSigningUp = true }
    let taken = ScreenFailure(.conflict, "Cannot sign up: that name or email is already taken.")
    await store.receiveFed(.response(.failed(taken))) {
      $0.isSigningUp = false
      $0.failure = taken
    }
    #expect(store.state.password == "demo-password")
    await store.finish()
  }
}
