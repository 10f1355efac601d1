import Crypto
import CryptoExtras
import Foundation
import HTTPTypes
import KeelConcurrency
import KeelJSON

/// Sign in with Apple and with Kakao, played on both sides (SandboxAPI §2): as each provider, the Sandbox signs
/// identity tokens (RS256 JWTs) with a key of its own and publishes the key as a JWKS at
/// `/v1/providers/{apple|kakao}/jwks`; as the backend, it verifies a token an app hands it with that published key,
/// as a real backend verifies Apple's and Kakao's: the signature, the issuer, the audience (the app's client id), the
/// expiry, and the nonce. A test, or the demo, gets a token from the provider's side through the control plane
/// (`POST /_sandbox/providers/{provider}/tokens`), as an app gets one from the provider's SDK.
struct IdentityProviders: Sendable {
  /// One provider.
  enum Provider: String, CaseIterable, Sendable {
    case apple
    case kakao

    /// The `iss` of the provider's tokens.
    var issuer: String {
      switch self {
      case .apple: "https://appleid.apple.com"
      case .kakao: "https://kauth.kakao.com"
      }
    }

    /// The `nonce` claim a token carries for the app's `nonce`: Apple signs the SHA-256 (hex) of the nonce the app
    /// asked with, Kakao the nonce itself.
    func claim(forNonce nonce: String) -> String {
      switch self {
      case .apple: Secrets.digest(nonce)
      case .kakao: nonce
      }
    }
  }

  /// What a verified token says.
  struct Identity: Equatable {
    let provider: Provider
    /// The provider's stable id of the user (`sub`).
    let subject: String
    /// The user's email, if the token has one.
    let email: String?
  }

  /// A provider's signing key and its published form.
  private struct SigningKey {
    let id: String
    let privateKey: _RSA.Signing.PrivateKey
    let jwk: JSONValue
  }

  /// The audience every provider's token must name: the app's client id (Apple's services id, Kakao's app key).
  let audience: String
  /// Each provider's key, made on first use and shared by every Sandbox of the process, as a real provider's keys
  /// are by every backend (an RSA key takes a second to make; most runs never need one).
  private static let keys = Locked<[String: SigningKey]>([:])

  init(audience: String) {
    self.audience = audience
  }

  /// The provider side: each provider's JWKS. The control plane's minting route is ``mintingRoute``.
  var routes: [Route] {
    [
      Route(.get, "/v1/providers/:provider/jwks") { request in
        let provider = try Self.provider(request)
        return .json(["keys": [try key(of: provider).jwk]])
      }
    ]
  }

  /// `POST /_sandbox/providers/{provider}/tokens` with
  /// `{"sub","email"?,"emailVerified"?,"nonce"?,"audience"?,"expiresIn"?}`: a token the provider signed, `{"idToken"}`,
  /// as its SDK gives an app. `emailVerified` defaults to true, `audience` to the Sandbox's, `expiresIn` (seconds,
  /// negative for one already expired) to 600.
  var mintingRoute: Route {
    Route(.post, "/_sandbox/providers/:provider/tokens") { request in
      let provider = try Self.provider(request)
      guard case .object(let body)? = JSONValue.parse(request.body), case .string(let subject)? = body["sub"],
        !subject.isEmpty, subject.count <= 255
      else { throw BackendError.malformed(#"expected {"sub","email"?,"nonce"?,"audience"?,"expiresIn"?}"#) }
      var claims: [String: JSONValue] = ["sub": .string(subject)]
      if case .string(let email)? = body["email"] {
        claims["email"] = .string(email)
        // Verified unless told otherwise, as Apple's relay addresses and a Kakao account's confirmed email are.
        claims["email_verified"] = body["emailVerified"] == .bool(false) ? .bool(false) : .bool(true)
      }
      if case .string(let nonce)? = body["nonce"] { claims["nonce"] = .string(provider.claim(forNonce: nonce)) }
      var audience = audience
      if case .string(let given)? = body["audience"] { audience = given }
      var lifetime = 600.0
      if case .number(let seconds)? = body["expiresIn"] { lifetime = seconds }
      return .json(["idToken": .string(try sign(claims, audience: audience, lifetime: lifetime, as: provider))])
    }
  }

  /// The identity in `token`, verified as the backend verifies a provider's token.
  ///
  /// - Throws: E21 for a token that is not a JWT of the provider's (unknown key, other algorithm, other issuer),
  ///   E22 for a bad signature, E23 for another audience, E24 for an expired token, E25 for a nonce that does not
  ///   match (or is missing on one side).
  func verify(_ token: String, from provider: Provider, nonce: String?) throws -> Identity {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard token.utf8.count <= 16_384, parts.count == 3, let headerData = Self.base64URLDecoded(parts[0]),
      let payloadData = Self.base64URLDecoded(parts[1]), let signature = Self.base64URLDecoded(parts[2]),
      case .object(let header)? = JSONValue.parse(headerData), case .object(let claims)? = JSONValue.parse(payloadData)
    else { throw Self.refused("E21", "The identity token is not a JWT.") }
    let key = try key(of: provider)
    guard header["alg"] == "RS256", header["kid"] == .string(key.id) else {
      throw Self.refused("E21", "The identity token was not signed with a key of \(provider.rawValue)'s JWKS.")
    }
    let signed = Data("\(parts[0]).\(parts[1])".utf8)
    guard
      key.privateKey.publicKey.isValidSignature(
        _RSA.Signing.RSASignature(rawRepresentation: signature), for: signed, padding: .insecurePKCS1v1_5)
    else { throw Self.refused("E22", "The identity token's signature is not valid.") }
    guard claims["iss"] == .string(provider.issuer), case .string(let subject)? = claims["sub"] else {
      throw Self.refused("E21", "The identity token was not issued by \(provider.rawValue).")
    }
    guard claims["aud"] == .string(audience) else {
      throw Self.refused("E23", "The identity token is for another app (its audience is not this backend's).")
    }
    guard case .number(let expiry)? = claims["exp"], expiry > Date().timeIntervalSince1970 else {
      throw Self.refused("E24", "The identity token has expired.")
    }
    switch (claims["nonce"], nonce) {
    case (nil, nil): break
    case (.string(let claimed)?, let nonce?) where Secrets.matches(provider.claim(forNonce: nonce), claimed): break
    default: throw Self.refused("E25", "The identity token's nonce does not match the one the app sent.")
    }
    // An address the provider has not verified is not the user's to claim: the account gets one of the Sandbox's own.
    var email: String?
    if case .string(let given)? = claims["email"],
      claims["email_verified"] == .bool(true)
        || claims["email_verified"] == .string("true")
    {
      email = given
    }
    return Identity(provider: provider, subject: subject, email: email)
  }

  private func sign(
    _ claims: [String: JSONValue], audience: String, lifetime: Double, as provider: Provider
  ) throws -> String {
    let key = try key(of: provider)
    let now = Date().timeIntervalSince1970.rounded(.down)
    var claims = claims
    claims["iss"] = .string(provider.issuer)
    claims["aud"] = .string(audience)
    claims["iat"] = .number(now)
    claims["exp"] = .number(now + lifetime.rounded(.down))
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let header = Self.base64URL(
      try encoder.encode(["alg": "RS256", "kid": .string(key.id), "typ": "JWT"] as JSONValue))
    let payload = Self.base64URL(try encoder.encode(JSONValue.object(claims)))
    let signature = try key.privateKey.signature(for: Data("\(header).\(payload)".utf8), padding: .insecurePKCS1v1_5)
    return "\(header).\(payload).\(Self.base64URL(signature.rawRepresentation))"
  }

  private func key(of provider: Provider) throws -> SigningKey {
    try Self.keys.withLock { keys in
      if let key = keys[provider.rawValue] { return key }
      let privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
      let primitives = try privateKey.publicKey.getKeyPrimitives()
      let id = "\(provider.rawValue)-\(UUID().uuidString.prefix(8).lowercased())"
      let jwk: JSONValue = [
        "kty": "RSA", "kid": .string(id), "use": "sig", "alg": "RS256",
        "n": .string(Self.base64URL(primitives.modulus)), "e": .string(Self.base64URL(primitives.publicExponent)),
      ]
      let key = SigningKey(id: id, privateKey: privateKey, jwk: jwk)
      keys[provider.rawValue] = key
      return key
    }
  }

  private static func provider(_ request: SandboxRequest) throws -> Provider {
    guard let name = request.parameter("provider"), let provider = Provider(rawValue: name) else {
      throw BackendError.notFound("Identity provider")
    }
    return provider
  }

  private static func refused(_ code: String, _ message: String) -> BackendError {
    BackendError(status: .unauthorized, code: code, message: message)
  }

  static func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }

  static func base64URLDecoded(_ text: Substring) -> Data? {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Data(base64Encoded: base64)
  }
}
