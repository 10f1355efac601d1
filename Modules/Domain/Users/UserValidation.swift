/// The Platform API's input limits (REQUIREMENTS U13), checked before anything is sent.
package enum UserValidation {
  /// The longest user id, in characters.
  static let maxIdLength = 80
  /// The longest nickname, in characters.
  static let maxNicknameLength = 80
  /// The longest profile URL, in characters.
  static let maxProfileURLLength = 2048
  /// The most users one `createUsers` call may create (U4): ``UserManager/maxBatchSize``.
  static let maxBatch = UserManager.maxBatchSize
  /// The most users one nickname search returns (U7).
  static let searchLimit = 100

  /// The first character of `text` that Keel refuses in any user field, with its place (from 1): a control
  /// character (C0, DEL, C1: an escape sequence can retitle or clear a terminal that shows it, a NUL or a line break
  /// can split a log line or a CSV row), a line or paragraph separator, or a bidirectional override that makes text
  /// read other than it is stored. The Platform API takes them; nothing a person types needs them.
  static func refusedCharacter(in text: String) -> (scalar: Unicode.Scalar, place: Int)? {
    for (offset, scalar) in text.unicodeScalars.enumerated() where isRefused(scalar) {
      return (scalar, offset + 1)
    }
    return nil
  }

  /// Whether Keel refuses `scalar` in user input (see ``refusedCharacter(in:)``).
  static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
  }

  /// Fails when `text` holds a character ``refusedCharacter(in:)`` finds; `what` names the field in the sentence.
  static func printable(_ text: String?, _ what: String, field: String) throws {
    guard let text, let (scalar, place) = refusedCharacter(in: text) else { return }
    let code = String(scalar.value, radix: 16, uppercase: true)
    throw UserManagerError.validation(
      field: field,
      "\(what) cannot hold control characters; U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code) "
        + "is character \(place).")
  }

  static func userId(_ id: String, field: String = "userId") throws {
    guard !id.isEmpty else { throw UserManagerError.validation(field: field, "A user id cannot be empty.") }
    try printable(id, "A user id", field: field)
    guard id.count <= maxIdLength else {
      throw UserManagerError.validation(
        field: field, "A user id has at most \(maxIdLength) characters; this one has \(id.count).")
    }
  }

  static func nickname(_ nickname: String?, field: String = "nickname") throws {
    try printable(nickname, "A nickname", field: field)
    guard let nickname, nickname.count > maxNicknameLength else { return }
    throw UserManagerError.validation(
      field: field, "A nickname has at most \(maxNicknameLength) characters; this one has \(nickname.count).")
  }

  static func profileURL(_ url: String?, field: String = "profileURL") throws {
    try printable(url, "A profile URL", field: field)
    guard let url, url.count > maxProfileURLLength else { return }
    throw UserManagerError.validation(
      field: field, "A profile URL has at most \(maxProfileURLLength) characters; this one has \(url.count).")
  }

  static func creation(_ params: UserCreationParams, field: String = "params") throws {
    try userId(params.userId, field: "\(field).userId")
    try nickname(params.nickname, field: "\(field).nickname")
    try profileURL(params.profileURL, field: "\(field).profileURL")
  }

  static func update(_ params: UserUpdateParams) throws {
    try userId(params.userId, field: "params.userId")
    try nickname(params.nickname, field: "params.nickname")
    try profileURL(params.profileURL, field: "params.profileURL")
    guard params.nickname != nil || params.profileURL != nil else {
      throw UserManagerError.validation(
        field: "params", "An update of \(params.userId) changes nothing: give a nickname, a profile URL or both.")
    }
  }

  /// Throws the first rule `params` breaks as one `createUsers` call: at most ``maxBatch`` users, each valid, no id
  /// twice; the error's `field` names the input (`params`, or `params[3].userId`).
  package static func batch(_ params: [UserCreationParams]) throws {
    guard params.count <= maxBatch else {
      throw UserManagerError.validation(
        field: "params", "createUsers takes at most \(maxBatch) users per call; this call has \(params.count).")
    }
    var seen: Set<String> = []
    for (index, item) in params.enumerated() {
      try creation(item, field: "params[\(index)]")
      guard seen.insert(item.userId).inserted else {
        throw UserManagerError.validation(
          field: "params[\(index)].userId", "The user id \(item.userId) appears twice in one createUsers call.")
      }
    }
  }

  static func searchLimit(_ limit: Int) throws {
    guard (1...searchLimit).contains(limit) else {
      throw UserManagerError.validation(field: "limit", "A search answers 1 to \(searchLimit) users, not \(limit).")
    }
  }

  static func searchNickname(_ nickname: String) throws {
    guard !nickname.allSatisfy(\.isWhitespace) else {
      throw UserManagerError.validation(field: "nicknameMatches", "A nickname to search for cannot be empty or blank.")
    }
    try self.nickname(nickname, field: "nicknameMatches")
  }

  static func applicationId(_ id: String, needsHostName: Bool) throws {
    guard !id.isEmpty, !id.contains(where: \.isWhitespace) else {
      throw UserManagerError.validation(field: "applicationId", "An application id cannot be empty or hold spaces.")
    }
    let hostSafe = id.unicodeScalars.allSatisfy {
      $0.isASCII && ($0.properties.isAlphabetic || $0 == "-" || ("0"..."9").contains($0))
    }
    guard !needsHostName || hostSafe else {
      throw UserManagerError.validation(
        field: "applicationId", "\"\(id)\" cannot form a host name: use letters, digits and hyphens, or a base URL.")
    }
  }

  static func apiToken(_ token: String) throws {
    guard !token.isEmpty, !token.contains(where: \.isWhitespace),
      !token.unicodeScalars.contains(where: isRefused)
    else {
      throw UserManagerError.validation(
        field: "apiToken", "An API token cannot be empty or hold spaces or control characters.")
    }
  }
}

extension UsersRouter.Route {
  /// Checks the route's input as the user manager's methods do (U13), so that requests sent by route are checked too.
  func validate() throws {
    switch self {
    case .create(let params): try UserValidation.creation(params)
    case .update(let params): try UserValidation.update(params)
    case .get(let userId): try UserValidation.userId(userId)
    case .list(let nickname, let limit):
      try UserValidation.searchNickname(nickname)
      try UserValidation.searchLimit(limit)
    }
  }
}
