import Foundation

/// What a signed-in session keeps in the secure store, under one key (REQUIREMENTS A6): the tokens, when the access
/// token expires, and who is signed in.
///
/// Its `description` never shows a token, so that a credential that ends up in a log or a test failure gives nothing
/// away.
public struct Credentials: Codable, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
  /// The short-lived token that authenticates calls (`Authorization: Bearer …`).
  public var accessToken: String
  /// The long-lived token that buys a new access token (`POST /v1/auth/refresh`).
  public var refreshToken: String
  /// When the access token was received.
  public var issuedAt: Date
  /// When the access token expires, by this device's clock: `issuedAt` plus the lifetime the server gave.
  public var expiresAt: Date
  /// Who is signed in.
  public var user: SessionUser

  /// Credentials.
  public init(accessToken: String, refreshToken: String, issuedAt: Date, expiresAt: Date, user: SessionUser) {
    self.accessToken = accessToken
    self.refreshToken = refreshToken
    self.issuedAt = issuedAt
    self.expiresAt = expiresAt
    self.user = user
  }

  /// Credentials received at `now` for an access token valid for `expiresIn` seconds.
  init(accessToken: String, refreshToken: String, expiresIn: Double, user: SessionUser, now: Date) {
    self.init(
      accessToken: accessToken, refreshToken: refreshToken, issuedAt: now,
      expiresAt: now.addingTimeInterval(max(0, expiresIn)), user: user)
  }

  /// These credentials with a new access token, received at `now` and valid for `expiresIn` seconds; the refresh
  /// token and the user stay.
  func refreshed(accessToken: String, expiresIn: Double, now: Date) -> Credentials {
    Credentials(accessToken: accessToken, refreshToken: refreshToken, expiresIn: expiresIn, user: user, now: now)
  }

  /// The user and the expiry; the tokens are masked.
  public var description: String {
    "Credentials(user: \(user.id), accessToken: ***, refreshToken: ***, expiresAt: \(expiresAt))"
  }

  /// The same as ``description``: the tokens are masked.
  public var debugDescription: String { description }
}
