import Foundation
import KeelConcurrency
import KeelJSON

/// The chat backends' accounts (SandboxAPI §2): those the Sandbox was started with (`--account`) and those signed up
/// since (`POST /v1/auth/signup`), each with a user id, an email, a nickname and the digest of its password (never
/// the password).
struct AccountDirectory: Sendable {
  struct Account: Codable, Sendable, Equatable {
    /// `user-` and the email's local part for a configured account, `member-` and it (numbered when taken) for a
    /// signed-up one: the two never meet, whichever accounts a later run is configured with.
    let id: String
    let email: String
    var nickname: String
    var passwordDigest: String

    /// The user as `/v1` shows one: `{"id","email","nickname"}`.
    /// The id of the profile image, served at `/v1/profile-images/{id}`; `nil` until one is uploaded.
    var profileImageID: String?

    var json: JSONValue {
      [
        "id": .string(id), "email": .string(email), "nickname": .string(nickname),
        "profileImage": profileImageID.map { .string("/v1/profile-images/\($0)") } ?? .null,
      ]
    }
  }

  /// Every account by its email in lower case, and the accounts providers' users signed in to.
  struct State: Codable {
    var accounts: [String: Account] = [:]
    /// `provider:subject` → the email key of the account that provider's user signs in to; absent from a state file
    /// written before sign-in with a provider existed.
    var providerAccounts: [String: String]?
  }

  /// The most accounts sign-up creates: a bound on the state a client can make the Sandbox keep.
  static let maxAccounts = 10_000

  private let configured: [String: String]
  private let state: Locked<State>

  init(configured: [String: String]) {
    self.configured = configured
    state = Locked(Self.seeded(State(), with: configured))
  }

  /// `state` with every configured account present, its password the configured one (a nickname changed since is
  /// kept).
  private static func seeded(_ state: State, with configured: [String: String]) -> State {
    var state = state
    for (email, password) in configured {
      let key = email.lowercased()
      let nickname = state.accounts[key]?.nickname ?? String(email.prefix { $0 != "@" })
      state.accounts[key] = Account(
        id: "user-" + email.prefix { $0 != "@" }, email: email, nickname: nickname,
        passwordDigest: Secrets.digest(password))
    }
    return state
  }

  /// The account `email` signs in to with `password`, or `nil`.
  func account(email: String, password: String) -> Account? {
    guard let account = account(email: email), Secrets.matches(Secrets.digest(password), account.passwordDigest)
    else { return nil }
    return account
  }

  /// The account of `email`, whatever its case.
  func account(email: String) -> Account? { state.withLock { $0.accounts[email.lowercased()] } }

  /// The account whose user id is `id`.
  func account(id: String) -> Account? { state.withLock { $0.accounts.values.first { $0.id == id } } }

  /// Creates an account; its user id is `member-` and the email's local part, numbered when that is taken.
  ///
  /// - Throws: `E01` for an email without `@` or over 254 characters, a password under 8 characters or a nickname
  ///   over 64; `E409` when the email has an account.
  func signUp(email: String, password: String, nickname: String?) throws -> Account {
    let local = String(email.prefix { $0 != "@" })
    guard email.count <= 254, email.contains("@"), !local.isEmpty, !email.contains(where: \.isWhitespace),
      !email.lowercased().hasSuffix(".users.invalid")
    else {
      throw BackendError.malformed("\"\(email.prefix(64))\" is not an email address")
    }
    guard password.count >= 8, password.count <= 256 else {
      throw BackendError.malformed("a password has 8 to 256 characters")
    }
    let nickname = nickname ?? local
    guard !nickname.isEmpty, nickname.count <= 64 else {
      throw BackendError.malformed("a nickname has 1 to 64 characters")
    }
    return try state.withLock { state in
      guard state.accounts[email.lowercased()] == nil else {
        throw BackendError.conflict("An account with this email exists.")
      }
      guard state.accounts.count < Self.maxAccounts else {
        throw BackendError.full("accounts")
      }
      let account = Account(
        id: Self.newID(local: local, in: state), email: email, nickname: nickname,
        passwordDigest: Secrets.digest(password))
      state.accounts[email.lowercased()] = account
      return account
    }
  }

  /// The account a provider's user signs in to: found by the provider and its id of the user, or made on their first
  /// sign-in, with the token's email if the provider verified it (else one of the Sandbox's own,
  /// `SUBJECT@PROVIDER.users.invalid`, which sign-up refuses) and no password: it is signed in to only through the
  /// provider.
  ///
  /// - Throws: `E409` when the token's email already belongs to another account (sign in to that one with its
  ///   password); `E507` when the Sandbox holds as many accounts as it takes.
  func account(signedInBy identity: IdentityProviders.Identity) throws -> (account: Account, isNew: Bool) {
    let link = "\(identity.provider.rawValue):\(identity.subject)"
    return try state.withLock { state in
      if let key = state.providerAccounts?[link], let account = state.accounts[key] { return (account, false) }
      let subject = identity.subject.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(32)
      let email = identity.email ?? "\(subject)@\(identity.provider.rawValue).users.invalid"
      guard state.accounts[email.lowercased()] == nil else {
        throw BackendError.conflict("An account with this email exists: sign in to it with its password.")
      }
      guard state.accounts.count < Self.maxAccounts else { throw BackendError.full("accounts") }
      let local = String(email.prefix { $0 != "@" })
      let account = Account(
        id: Self.newID(local: local, in: state), email: email, nickname: String(local.prefix(64)),
        passwordDigest: Secrets.digest(UUID().uuidString + UUID().uuidString))
      state.accounts[email.lowercased()] = account
      state.providerAccounts = (state.providerAccounts ?? [:]).merging([link: email.lowercased()]) { $1 }
      return (account, true)
    }
  }

  /// `member-` and `local`, numbered when an account has that id.
  private static func newID(local: String, in state: State) -> String {
    let taken = Set(state.accounts.values.map(\.id))
    let base = "member-" + local.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }
    var id = base
    var suffix = 2
    while taken.contains(id) {
      id = "\(base)-\(suffix)"
      suffix += 1
    }
    return id
  }

  /// Changes the nickname of `email`'s account; returns the account as it is now.
  func rename(email: String, to nickname: String) throws -> Account {
    guard !nickname.isEmpty, nickname.count <= 64 else {
      throw BackendError.malformed("a nickname has 1 to 64 characters")
    }
    return try state.withLock { state in
      guard var account = state.accounts[email.lowercased()] else { throw BackendError.accessTokenInvalid }
      account.nickname = nickname
      state.accounts[email.lowercased()] = account
      return account
    }
  }

  /// Makes `imageID` the profile image of `email`'s account; returns the account as it is now and the image it
  /// replaced, if any.
  func setProfileImage(email: String, to imageID: String) throws -> (account: Account, replaced: String?) {
    try state.withLock { state in
      guard var account = state.accounts[email.lowercased()] else { throw BackendError.accessTokenInvalid }
      let replaced = account.profileImageID
      account.profileImageID = imageID
      state.accounts[email.lowercased()] = account
      return (account, replaced)
    }
  }

  /// Forgets every signed-up account; the configured ones stay.
  func reset() { state.withLock { $0 = Self.seeded(State(), with: configured) } }

  /// Every account, to be kept between runs.
  var snapshot: State { state.withLock { $0 } }

  /// Puts back the accounts of a snapshot, with the configured ones as configured now.
  func restore(_ snapshot: State) { state.withLock { $0 = Self.seeded(snapshot, with: configured) } }
}
