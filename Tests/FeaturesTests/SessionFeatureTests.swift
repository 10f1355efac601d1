import Domain
import Features
import FeaturesTesting
import KeelConcurrency
import TestSupport
import Testing

/// SessionFeature through an exhaustive TestStore, on a session manager fake whose states the test publishes
/// (REQUIREMENTS F1–F3, A4–A6). `AppFeatureIntegrationTests` signs in through the form and goes back to login on
/// expiry against the Sandbox; late answers, replaced states and refusals checked state by state need the fake's order.
@Suite(.timeLimit(.minutes(3))) struct SessionFeatureTests {
  static let demo = FakeSessions.demo

  @Test("A bad form sends nothing: empty fields, then a malformed email; typing clears the field's error")
  @MainActor
  func validation() async {
    let sessions = FakeSessions()
    let store = TestStore(initialState: SessionFeature.State(), reducer: SessionFeature(client: sessions.client))
    await store.send(.view(.loginTapped)) {
      $0.emailError = "Enter your email."
      $0.passwordError = "Enter your password."
    }
    await store.send(.view(.emailChanged("demo@keel"))) {
      $0.email = "demo@keel"
      $0.emailError = nil
    }
    await store.send(.view(.passwordChanged("secret"))) {
      $0.password = "secret"
      $0.passwordError = nil
    }
    await store.send(.view(.loginTapped)) { $0.emailError = "Enter an email address such as name@example.com." }
    for malformed in ["@keel.dev", "demo@", "demo@.dev", "de mo@keel.dev", "a@b@keel.dev"] {
      await store.send(.view(.emailChanged(malformed))) {
        $0.email = malformed
        $0.emailError = nil
      }
      await store.send(.view(.loginTapped)) { $0.emailError = "Enter an email address such as name@example.com." }
    }
    await store.finish()
    #expect(sessions.logins.elements.isEmpty, "nothing was sent")
  }

  @Test("A refused sign-in and a network failure each show a sentence, keep the form, and tell the parent nothing")
  @MainActor
  func loginErrors() async {
    let sessions = FakeSessions()
    sessions.failures.record(SessionError(.loginRefused, "The server refused the email and password (E03)."))
    sessions.failures.record(SessionError(.requestFailed, "Cannot sign in: the connection was lost."))
    let store = TestStore(
      initialState: SessionFeature.State(email: " demo@keel.dev ", password: "wrong"),
      reducer: SessionFeature(client: sessions.client))

    await store.send(.view(.loginTapped)) { $0.status = .signingIn }
    await store.receive(.response(.loginFailed(message: "The email or password is wrong."))) {
      $0.status = .signedOut
      $0.errorMessage = "The email or password is wrong."
    }
    let network = "Cannot reach the sign-in server. Check the connection and try again."
    await store.send(.view(.loginTapped)) {
      $0.status = .signingIn
      $0.errorMessage = nil
    }
    await store.receive(.response(.loginFailed(message: network))) {
      $0.status = .signedOut
      $0.errorMessage = network
    }
    await store.finish()
    #expect(sessions.logins.elements.map(\.email) == ["demo@keel.dev", "demo@keel.dev"], "sent trimmed")
  }

  @Test("A provider's identity token signs in; a refused one says why in words; taps while it runs do nothing")
  @MainActor
  func providerSignIn() async {
    let sessions = FakeSessions()
    var refused = SessionError(.providerTokenRefused, "Cannot sign in with apple: the server refused the token.")
    refused.providerRefusal = .wrongAudience
    sessions.providerFailure.withLock { $0 = refused }
    let store = TestStore(initialState: SessionFeature.State(), reducer: SessionFeature(client: sessions.client))
    sessions.loginGate.close()
    await store.send(.view(.providerSignedIn(.apple, idToken: "h.p.s", nonce: "n1"))) { $0.status = .signingIn }
    await store.send(.view(.providerSignedIn(.apple, idToken: "h.p.s", nonce: "n1")))  // a second tap
    await store.send(.view(.loginTapped))
    sessions.loginGate.open()
    await store.receive(
      .response(.loginFailed(message: "The sign-in could not be verified. Try again, or sign in with your email."))
    ) {
      $0.status = .signedOut
      $0.errorMessage = "The sign-in could not be verified. Try again, or sign in with your email."
    }

    sessions.providerFailure.withLock { $0 = nil }
    await store.send(.view(.providerSignedIn(.kakao, idToken: "h.p.t", nonce: nil))) {
      $0.status = .signingIn
      $0.errorMessage = nil
    }
    await store.receive(.response(.loggedIn(Self.demo))) { $0.status = .signedIn(Self.demo) }
    await store.receive(.delegate(.signedIn(Self.demo)))
    #expect(sessions.providerSignIns.elements == ["apple h.p.s n1", "kakao h.p.t -"])
    await store.finish()
  }

  @Test("Signing in follows the state stream; the parent hears signedIn once, then sessionExpired when it ends")
  @MainActor
  func signInThenExpiry() async {
    let sessions = FakeSessions()
    let store = TestStore(
      initialState: SessionFeature.State(email: "demo@keel.dev", password: "demo-password"),
      reducer: SessionFeature(client: sessions.client))
    await store.send(.view(.task))
    await store.receive(.internal(.sessionChanged(.loggedOut)))  // the current state first: nothing to change

    await store.send(.view(.loginTapped)) { $0.status = .signingIn }
    await store.receive(.response(.loggedIn(Self.demo))) {
      $0.status = .signedIn(Self.demo)
      $0.password = ""
    }
    await store.receive(.delegate(.signedIn(Self.demo)))
    sessions.publish(.loggedIn(Self.demo))  // the manager's own news of the same sign-in: no change
    await store.receive(.internal(.sessionChanged(.loggedIn(Self.demo))))

    sessions.publish(.expired)
    await store.receive(.internal(.sessionChanged(.expired))) {
      $0.status = .signedOut
      $0.errorMessage = SessionFeature.expiredMessage
    }
    await store.receive(.delegate(.sessionExpired))
    sessions.publish(.expired)  // published again: already signed out, the parent is not told twice
    await store.receive(.internal(.sessionChanged(.expired)))
    sessions.end()
    await store.finish()
  }

  @Test("A session restored at launch shows as signed in; signing out with the server unreachable still signs out")
  @MainActor
  func restoredThenLogout() async {
    let sessions = FakeSessions(initial: .loggedIn(Self.demo))
    sessions.logoutFailure.record(SessionError(.revocationFailed, "Signed out here, but the server was not told."))
    let store = TestStore(initialState: SessionFeature.State(), reducer: SessionFeature(client: sessions.client))
    await store.send(.view(.task))
    await store.receive(.internal(.sessionChanged(.loggedIn(Self.demo)))) { $0.status = .signedIn(Self.demo) }
    await store.receive(.delegate(.signedIn(Self.demo)))

    await store.send(.view(.logoutTapped)) { $0.status = .signingOut }
    await store.receive(.response(.loggedOut(warning: "Signed out here, but the server was not told."))) {
      $0.status = .signedOut
      $0.errorMessage = "Signed out here, but the server was not told."
    }
    await store.receive(.delegate(.signedOut))
    sessions.publish(.loggedOut)  // the manager's own news of the same sign-out: no change, no second delegate
    await store.receive(.internal(.sessionChanged(.loggedOut)))
    await store.send(.view(.logoutTapped))  // nobody signed in: nothing
    sessions.end()
    await store.finish()
  }

  @Test("Late and stale news never undo a newer change: a replaced state is skipped, an old answer is ignored")
  @MainActor
  func lateAndStaleNews() async {
    let sessions = FakeSessions()
    let store = TestStore(
      initialState: SessionFeature.State(email: "demo@keel.dev", password: "demo-password"),
      reducer: SessionFeature(client: sessions.client))
    await store.send(.view(.task))
    await store.receive(.internal(.sessionChanged(.loggedOut)))

    // The manager's news of the sign-in comes before the sign-in's own answer, which then changes nothing.
    sessions.loginGate.close()
    await store.send(.view(.loginTapped)) { $0.status = .signingIn }
    sessions.publish(.loggedIn(Self.demo))
    await store.receive(.internal(.sessionChanged(.loggedIn(Self.demo)))) {
      $0.status = .signedIn(Self.demo)
      $0.password = ""
    }
    await store.receive(.delegate(.signedIn(Self.demo)))
    sessions.loginGate.open()  // the answer is dropped: its effect was cancelled once signed in

    // A sign-out whose answer is slow (the server revoking the token): the manager's news signs out at once; the user
    // signs in again before the answer comes, and the late answer does not sign them out.
    sessions.logoutGate.close()
    await store.send(.view(.logoutTapped)) { $0.status = .signingOut }
    sessions.publish(.loggedOut)
    await store.receive(.internal(.sessionChanged(.loggedOut))) { $0.status = .signedOut }
    await store.receive(.delegate(.signedOut))
    await store.send(.view(.passwordChanged("demo-password"))) { $0.password = "demo-password" }
    await store.send(.view(.loginTapped)) { $0.status = .signingIn }
    await store.receive(.response(.loggedIn(Self.demo))) {
      $0.status = .signedIn(Self.demo)
      $0.password = ""
    }
    await store.receive(.delegate(.signedIn(Self.demo)))
    sessions.logoutGate.open()
    await store.receive(.response(.loggedOut(warning: nil)))  // old news: still signed in

    // A state the manager replaced before it was read is skipped: no sign-out flicker between two sign-ins.
    sessions.publish(.loggedOut, replacedBy: .loggedIn(Self.demo))
    await store.receive(.internal(.sessionChanged(.loggedIn(Self.demo))))

    // Another user signing in replaces the first: the parent hears the sign-out, then the sign-in.
    let other = SessionUser(id: "user-2", email: "two@keel.dev", nickname: "two")
    sessions.publish(.loggedIn(other))
    await store.receive(.internal(.sessionChanged(.loggedIn(other)))) { $0.status = .signedIn(other) }
    await store.receive(.delegate(.signedOut))
    await store.receive(.delegate(.signedIn(other)))
    sessions.end()
    await store.finish()
  }
}
