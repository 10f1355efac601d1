import Foundation
import KeelConcurrency
import Logging
import Networking
import Persistence

extension SessionManager {
  /// Signs out: ends the session on this device at once, then revokes its refresh token on the server.
  ///
  /// The device comes first, so that calls in flight stop, an app killed during sign-out does not come back signed
  /// in, and a refresh that fails meanwhile cannot report the session as expired. When the access token has expired
  /// (`E05`) or is not recognised (`E02`), a new one is fetched with the refresh token to prove who signs out; a
  /// refresh token the server already refuses (`E06`) counts as revoked. Does nothing but publish
  /// ``SessionState/loggedOut`` when nobody is signed in.
  ///
  /// - Throws: ``SessionError``, after the session has ended on this device whatever happens:
  ///   `SessionError.Kind.storage` when the secure store could not wipe the tokens;
  ///   `SessionError.Kind.revocationFailed` when the server could not be told (the refresh token stays valid there
  ///   until it expires). Callers that only care about this device may ignore it (`try?`). `CancellationError` when
  ///   the calling task is cancelled while the server is told: the session has ended on this device all the same.
  public func logout() async throws {
    let (ended, wipeFailure) = endSessionHere()
    var revocationFailure: (any Error)?
    if let ended { revocationFailure = await revoke(ended) }
    if let wipeFailure {
      logger.error("Signed out, but the secure store cannot wipe the tokens: \(wipeFailure)")
      throw SessionError(
        .storage, "Signed out, but the secure store cannot wipe the tokens: \(wipeFailure)", underlying: wipeFailure)
    }
    if let revocationFailure {
      logger.warning("\(revocationFailure)")
      throw revocationFailure
    }
    if ended != nil { logger.info("Signed out.") }
  }

  /// Wipes the session on this device; returns its credentials, if there was one, and a failure to wipe them.
  private func endSessionHere() -> (Credentials?, (any Error)?) {
    session.withLock { current in
      let ended = current
      current = nil
      var failure: (any Error)?
      // Whatever the state: a wipe that failed after an expiry gets another chance here.
      do { try secureStore.removeData(forKey: Self.storageKey) } catch { failure = error }
      interceptor.clearCredential()
      broadcast.publish(.loggedOut)
      return (ended, failure)
    }
  }

  /// Revokes `ended`'s refresh token on the server; the failure (a ``SessionError``, or `CancellationError`), or `nil`
  /// once it is revoked.
  private func revoke(_ ended: Credentials) async -> (any Error)? {
    // Without a backend there is no server to tell (the tokens came from an earlier configuration).
    guard let baseURL else { return nil }
    do {
      do {
        try await signOut(with: ended.accessToken, at: baseURL)
      } catch let error as NetworkError where ["E02", "E05"].contains(error.serverError?.code) {
        // The access token no longer proves who signs out; a new one from the refresh token does.
        let refreshed = try await auth.send(
          APIRequest<RefreshResponse>.json(AuthRouter(.refresh(refreshToken: ended.refreshToken), baseURL: baseURL)))
        try await signOut(with: refreshed.accessToken, at: baseURL)
      }
      return nil
    } catch let error as NetworkError where error.serverError?.code == "E06" {
      return nil  // The server refuses the refresh token already: there is nothing left to revoke.
    } catch let error as NetworkError {
      return SessionError(
        .revocationFailed,
        "Signed out on this device, but the server could not be told (\(error)); the refresh token stays valid there "
          + "until it expires.",
        requestFailure: RequestFailure(error))
    } catch {
      return error
    }
  }

  private func signOut(with accessToken: String, at baseURL: URL) async throws {
    _ = try await auth.send(.empty(AuthRouter(.logout(accessToken: accessToken), baseURL: baseURL)))
  }
}
