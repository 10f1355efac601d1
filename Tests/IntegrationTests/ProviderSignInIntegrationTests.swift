import Crypto
import CryptoExtras
import Domain
import Features
import Foundation
import Logging
import NIOTransports
import Networking
import Persistence
import Sandbox
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sign in with Apple and Kakao against the Sandbox, which plays each provider (its keys published as a JWKS) and
/// the backend that verifies their tokens (REQUIREMENTS A4, F1–F3): a good token, then each kind of bad one, and the
/// first and the second sign-in of one provider user.
@Suite("Sign-in with a provider against the Sandbox", .timeLimit(.minutes(3)))
struct ProviderSignInIntegrationTests {
  private static func sessions(on sandbox: RunningSandbox, in directory: URL) throws -> SessionManager {
    sandboxSessions(
      on: sandbox, store: try EncryptedFileSecureStore(directory: directory), transport: TransportKind.nio.transport)
  }

  @Test(
    "Each provider: the first sign-in makes the account, the next finds it; Apple's nonce is checked as its SHA-256",
    arguments: IdentityProvider.allCases)
  func firstAndSecond(provider: IdentityProvider) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = try sessionStoreDirectory("provider-\(provider.rawValue)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let sessions = try Self.sessions(on: sandbox, in: directory)

    let first = try await sandbox.control.identityToken(
      from: provider.rawValue, subject: "000123.abc", email: "\(provider.rawValue)-user@keel.dev", nonce: "nonce-1")
    let user = try await sessions.signIn(with: provider, idToken: first, nonce: "nonce-1")
    #expect(user.email == "\(provider.rawValue)-user@keel.dev")
    #expect(sessions.currentUser == user)
    #expect(try await sandbox.control.statistics().counter("signups") == 1, "the first sign-in made the account")
    #expect(try await sessions.me().id == user.id, "the backend's own tokens work")

    try await sessions.logout()
    let second = try await sandbox.control.identityToken(
      from: provider.rawValue, subject: "000123.abc", email: "\(provider.rawValue)-user@keel.dev", nonce: "nonce-2")
    let again = try await sessions.signIn(with: provider, idToken: second, nonce: "nonce-2")
    #expect(again.id == user.id, "the second sign-in found the same account")
    #expect(try await sandbox.control.statistics().counter("signups") == 1)
    await sandbox.stop()
  }

  @Test("An email the provider did not verify is not taken: the account gets one of the Sandbox's own")
  func unverifiedEmail() async throws {
    let sandbox = try await Sandbox.start(
      SandboxConfiguration(accounts: SandboxConfiguration.tryingAccounts, logLevel: .warning))
    let directory = try sessionStoreDirectory("provider-unverified")
    defer { try? FileManager.default.removeItem(at: directory) }
    let sessions = try Self.sessions(on: sandbox, in: directory)
    let claimed = try await sandbox.control.identityToken(
      from: "kakao", subject: "777", email: "ada@keel.dev", emailVerified: false)
    let user = try await sessions.signIn(with: .kakao, idToken: claimed)
    #expect(user.email == "777@kakao.users.invalid" && user.id != "user-ada")
    await sandbox.stop()
  }

  @Test("Each bad token is refused with its own typed reason, and nothing changes")
  func badTokens() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = try sessionStoreDirectory("provider-bad")
    defer { try? FileManager.default.removeItem(at: directory) }
    let sessions = try Self.sessions(on: sandbox, in: directory)
    let control = sandbox.control

    func refusal(
      _ token: String, nonce: String?, provider: IdentityProvider = .apple
    ) async -> ProviderTokenRefusal? {
      do {
        _ = try await sessions.signIn(with: provider, idToken: token, nonce: nonce)
        return nil
      } catch let error as SessionError {
        #expect(error.kind == .providerTokenRefused)
        return error.providerRefusal
      } catch {
        Issue.record("unexpected \(error)")
        return nil
      }
    }

    let otherApp = try await control.identityToken(from: "apple", subject: "s1", nonce: "n", audience: "com.other.app")
    #expect(await refusal(otherApp, nonce: "n") == .wrongAudience)
    let expired = try await control.identityToken(from: "apple", subject: "s1", nonce: "n", lifetime: .seconds(-60))
    #expect(await refusal(expired, nonce: "n") == .expired)
    let good = try await control.identityToken(from: "apple", subject: "s1", nonce: "n")
    #expect(await refusal(good, nonce: "another nonce") == .nonceMismatch)
    #expect(await refusal(good, nonce: nil) == .nonceMismatch, "a token with a nonce needs the app's")
    #expect(await refusal(good, nonce: "n", provider: .kakao) == .notTheProvidersToken, "Apple's token is not Kakao's")

    // A token signed with another key under the provider's key id, and one whose claims were changed after signing
    let parts = good.split(separator: ".").map(String.init)
    let forger = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    let forged = try forger.signature(for: Data("\(parts[0]).\(parts[1])".utf8), padding: .insecurePKCS1v1_5)
    #expect(
      await refusal("\(parts[0]).\(parts[1]).\(base64URL(forged.rawRepresentation))", nonce: "n") == .badSignature)
    let claims = try #require(decodedBase64URL(parts[1]))
    let changed = Data(String(decoding: claims, as: UTF8.self).replacingOccurrences(of: "\"s1\"", with: "\"s2\"").utf8)
    #expect(await refusal("\(parts[0]).\(base64URL(changed)).\(parts[2])", nonce: "n") == .badSignature)

    // Not a JWT at all: refused before anything is sent
    let malformed = await #expect(throws: SessionError.self) {
      try await sessions.signIn(with: .apple, idToken: "not a token", nonce: "n")
    }
    #expect(malformed?.kind == .invalidInput)
    #expect(sessions.currentUser == nil)
    #expect(try await control.statistics().counter("signups") == 0)
    await sandbox.stop()
  }

  @Test("The JWKS the Sandbox publishes as each provider verifies that provider's tokens, and only them")
  func publishedKeys() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    func key(_ provider: String) async throws -> (id: String, key: _RSA.Signing.PublicKey) {
      let url = sandbox.baseURL.appendingPathComponent("v1/providers/\(provider)/jwks")
      let (data, _) = try await URLSession(configuration: .ephemeral).data(from: url)
      let jwks = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
      let jwk = try #require((jwks["keys"] as? [[String: Any]])?.first)
      #expect(jwk["kty"] as? String == "RSA" && jwk["alg"] as? String == "RS256" && jwk["use"] as? String == "sig")
      let modulus = try #require(jwk["n"] as? String)
      let exponent = try #require(jwk["e"] as? String)
      let n = try #require(decodedBase64URL(modulus))
      let e = try #require(decodedBase64URL(exponent))
      return (try #require(jwk["kid"] as? String), try _RSA.Signing.PublicKey(n: n, e: e))
    }
    let apple = try await key("apple")
    let kakao = try await key("kakao")
    let token = try await sandbox.control.identityToken(from: "kakao", subject: "k1")
    let parts = token.split(separator: ".").map(String.init)
    let header = try #require(decodedBase64URL(parts[0]))
    #expect(String(decoding: header, as: UTF8.self).contains(kakao.id))
    let signature = _RSA.Signing.RSASignature(rawRepresentation: try #require(decodedBase64URL(parts[2])))
    let signed = Data("\(parts[0]).\(parts[1])".utf8)
    #expect(kakao.key.isValidSignature(signature, for: signed, padding: .insecurePKCS1v1_5))
    #expect(!apple.key.isValidSignature(signature, for: signed, padding: .insecurePKCS1v1_5))
    await sandbox.stop()
  }

  @Test("The app signs in with Kakao through the session feature, and shows the home screen")
  @MainActor
  func appSignsInWithKakao() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = try sessionStoreDirectory("provider-app")
    defer { try? FileManager.default.removeItem(at: directory) }
    let dependencies = Dependencies.live(
      configuration: KeelConfiguration(
        sendbirdBaseURL: sandbox.baseURL, backendBaseURL: sandbox.baseURL, dataDirectory: directory,
        transport: TransportKind.nio.transport))
    let store = Store(
      initialState: AppFeature.State(), reducer: AppFeature.live(dependencies: dependencies, clock: ContinuousClock()))
    store.send(.view(.task))
    let expired = try await sandbox.control.identityToken(
      from: "kakao", subject: "k9", nonce: "n", lifetime: .seconds(-1))
    await store.send(.session(.view(.providerSignedIn(.kakao, idToken: expired, nonce: "n")))).finish()
    #expect(store.state.screen == .login)
    #expect(store.state.session.errorMessage == "The sign-in took too long and expired. Try again.")
    let token = try await sandbox.control.identityToken(from: "kakao", subject: "k9", nonce: "n")
    store.send(.session(.view(.providerSignedIn(.kakao, idToken: token, nonce: "n"))))
    #expect(await waitUntil(store) { $0.screen == .home })
    #expect(store.state.session.user?.email == "k9@kakao.users.invalid", "no email in the token: the Sandbox's own")
    await dependencies.shutDown()
    await sandbox.stop()
  }
}

private func base64URL(_ data: Data) -> String {
  data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    .replacingOccurrences(of: "=", with: "")
}

private func decodedBase64URL(_ text: String) -> Data? {
  var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
  base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
  return Data(base64Encoded: base64)
}
