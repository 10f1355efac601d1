import Foundation

/// What ``HTTPClient`` hides when it logs requests and responses (REQUIREMENTS U11): secret headers, token-like
/// fields in JSON bodies and query strings, and everything past a body's first bytes.
///
/// ```swift
/// import Logging
///
/// let logger = Logger(label: "myapp.network")
/// var redaction = LogRedaction.standard
/// redaction.headers.insert("X-Session")
/// let client = HTTPClient(logger: logger, redaction: redaction)
/// ```
public struct LogRedaction: Sendable {
  /// Header names whose values are never logged, compared ignoring case.
  public var headers: Set<String> {
    didSet { headers = Set(headers.map { $0.lowercased() }) }
  }
  /// Fragments of JSON field and query item names whose values are never logged, compared ignoring case: a field
  /// named `accessToken` or `refresh_token` contains `token`. The whole value is masked, an object or array too.
  public var fieldFragments: [String] {
    didSet { fieldFragments = fieldFragments.map { $0.lowercased() } }
  }
  /// The most bytes of a body that are logged.
  public var bodyLimit: Int

  /// A redaction of `headers` (compared ignoring case), of fields whose names contain one of `fieldFragments`, and of
  /// bodies past `bodyLimit` bytes.
  public init(headers: Set<String>, fieldFragments: [String], bodyLimit: Int) {
    self.headers = Set(headers.map { $0.lowercased() })
    self.fieldFragments = fieldFragments.map { $0.lowercased() }
    self.bodyLimit = bodyLimit
  }

  /// `Api-Token`, `Authorization`, `Proxy-Authorization`, `RefreshToken`, `Cookie`, `Set-Cookie`, `X-Api-Key` and
  /// `Sandbox-Key` headers; fields whose names contain `token`, `password`, `secret`, `authorization`, `apikey`, `api_key`,
  /// `api-key` or `cookie`; 1 KiB of each body.
  public static let standard = LogRedaction(
    headers: [
      "api-token", "authorization", "proxy-authorization", "refreshtoken", "cookie", "set-cookie", "x-api-key",
      "sandbox-key",
    ],
    fieldFragments: ["token", "password", "secret", "authorization", "apikey", "api_key", "api-key", "cookie"],
    bodyLimit: 1_024)

  /// What replaces a secret.
  public static let mask = "***"

  /// `headers` as `name: value` pairs sorted by name, secret values masked.
  public func render(headers: [String: String]) -> String {
    headers.sorted { $0.key.lowercased() < $1.key.lowercased() }
      .map { "\($0.key): \(self.headers.contains($0.key.lowercased()) ? Self.mask : $0.value)" }
      .joined(separator: ", ")
  }

  /// `url` with its user-info password and the values of secret query items masked:
  /// `https://bob:***@example.com/x?token=***`.
  public func render(url: URL?) -> String {
    guard let url else { return "(no URL)" }
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
      return url.user == nil && url.password == nil ? url.absoluteString : "(a URL with credentials)"
    }
    if components.percentEncodedPassword != nil { components.percentEncodedPassword = Self.mask }
    if let items = components.percentEncodedQueryItems, !items.isEmpty {
      components.percentEncodedQueryItems = items.map { item in
        isSecret(field: item.name) ? URLQueryItem(name: item.name, value: Self.mask) : item
      }
    }
    return components.string ?? "(an unprintable URL)"
  }

  /// The first ``bodyLimit`` bytes of `body` as text, with the values of secret JSON fields (`"token":"…"`) and form
  /// fields (`token=…`) masked, and how much was left out.
  public func render(body: Data?) -> String {
    guard let body, !body.isEmpty else { return "(empty)" }
    let shown = body.prefix(bodyLimit)
    var text = maskFields(in: String(decoding: shown, as: UTF8.self))
    if body.count > shown.count { text += " … (\(body.count) bytes)" }
    return text
  }

  /// Whether a field or query item named `name` holds a secret.
  public func isSecret(field name: String) -> Bool {
    let name = name.lowercased()
    return fieldFragments.contains { name.contains($0) }
  }

  /// Masks `"name": value` (a string, possibly cut off by truncation, or a bare token) and `name=value` where `name`
  /// is secret. A scanner rather than a JSON parser, because a truncated body is not valid JSON.
  func maskFields(in text: String) -> String {
    var output = ""
    output.reserveCapacity(text.utf8.count)
    var rest = Substring(text)
    while let quote = rest.firstIndex(of: "\"") {
      output += rest[..<quote]
      rest = rest[quote...]
      let name = Self.string(at: &rest)
      output += name
      guard isSecret(field: String(name.dropFirst().dropLast())) else { continue }
      let spaces = rest.prefix { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
      guard rest.dropFirst(spaces.count).first == ":" else { continue }
      output += spaces + ":"
      rest = rest.dropFirst(spaces.count + 1)
      let gap = rest.prefix { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
      output += gap
      rest = rest.dropFirst(gap.count)
      switch rest.first {
      case "\"":
        _ = Self.string(at: &rest)
        output += "\"\(Self.mask)\""
      case "{", "[":
        Self.skipComposite(&rest)
        output += Self.mask
      default:
        rest = rest.drop { !",}] \n".contains($0) }
        output += Self.mask
      }
    }
    output += rest
    return maskForm(output)
  }

  /// Takes a JSON string literal off the front of `text` (which starts with `"`), up to and including its closing
  /// quote, or to the end if it is cut off.
  private static func string(at text: inout Substring) -> Substring {
    var index = text.index(after: text.startIndex)
    while index < text.endIndex {
      switch text[index] {
      case "\\":
        index = text.index(index, offsetBy: 2, limitedBy: text.endIndex) ?? text.endIndex
      case "\"":
        let end = text.index(after: index)
        defer { text = text[end...] }
        return text[..<end]
      default:
        index = text.index(after: index)
      }
    }
    defer { text = text[text.endIndex...] }
    return text
  }

  /// Takes a JSON object or array off the front of `text` (which starts with `{` or `[`), up to and including its
  /// closing bracket, or to the end if it is cut off.
  private static func skipComposite(_ text: inout Substring) {
    var depth = 0
    while let first = text.first {
      switch first {
      case "\"":
        _ = string(at: &text)
        continue
      case "{", "[":
        depth += 1
      case "}", "]":
        depth -= 1
      default:
        break
      }
      text = text.dropFirst()
      if depth == 0 { return }
    }
  }

  /// Masks `name=value` pairs of a form body whose name is secret.
  private func maskForm(_ text: String) -> String {
    guard text.contains("="), !text.hasPrefix("{"), !text.hasPrefix("[") else { return text }
    return text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
      guard let equals = pair.firstIndex(of: "="), isSecret(field: String(pair[..<equals])) else { return pair }
      return pair[...equals] + Self.mask
    }.joined(separator: "&")
  }
}
