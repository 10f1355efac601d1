import Foundation

/// The users of an import file, read and checked in full before anything is sent: CSV with the header
/// `user_id,nickname,profile_url` (`profile_url` optional; RFC 4180 quoting, a byte-order mark and CRLF accepted), or
/// a JSON array of objects with those keys. Every row is checked as ``UserManager/createUser(params:)`` would check
/// it, a nickname must not be blank (a user must be findable by name), and an id may appear once.
///
/// ```swift
/// import Foundation
///
/// let dataDirectory = URL(fileURLWithPath: "myapp-data", isDirectory: true)
/// let users = Dependencies.live(configuration: KeelConfiguration(dataDirectory: dataDirectory)).users
/// try users.initApplication(applicationId: "A1B2C3D4-E5F6-7890", apiToken: "your-api-token")
/// let file = try UserImportFile.parse(Data("user_id,nickname\nalice,Alice\n".utf8))
/// for row in file.rows { _ = try await users.createUser(params: row.params) }   // row.place is "line 2"
/// ```
///
/// Input is bounded: at most ``maxBytes`` bytes and ``maxRows`` rows, so that a runaway file fails fast and small.
public struct UserImportFile: Sendable {
  /// One user and where it was in the file.
  public struct Row: Sendable, Hashable {
    /// Where the row starts: `line 3` in CSV, `entry 3` in JSON.
    public let place: String
    /// The user to create.
    public let params: UserCreationParams
  }

  /// Every row, in file order.
  public let rows: [Row]

  /// The largest import file, in bytes: 32 MiB, some 300,000 rows of typical users. A reader of a stream stops one
  /// byte past it, so that an endless stream costs no more memory than this.
  public static let maxBytes = 32 << 20
  /// The most users one file holds: 100,000, more than a day at one request per second.
  public static let maxRows = 100_000

  /// The users of `data`, an import file's contents, checked in full.
  ///
  /// - Throws: ``UserImportFileError`` of the kind that says what is wrong: too large, too many rows, not UTF-8, a
  ///   JSON object instead of an array, bad rows (each listed with its place), or no users at all.
  public static func parse(_ data: Data) throws(UserImportFileError) -> UserImportFile {
    guard data.count <= maxBytes else { throw UserImportFileError(.tooLarge) }
    guard let text = String(data: data, encoding: .utf8) else { throw UserImportFileError(.notText) }
    let opening = text.first(where: { !$0.isWhitespace && $0 != "\u{FEFF}" })
    guard opening != "{" else { throw UserImportFileError(.notAnArray) }
    let (rows, problems) = opening == "[" ? parseJSON(data) : parseCSV(text)
    guard rows.count + problems.count <= maxRows else { throw UserImportFileError(.tooManyRows) }
    let allProblems = check(rows, problems: problems)
    guard allProblems.isEmpty else { throw UserImportFileError(.badRows, problems: allProblems) }
    guard !rows.isEmpty else { throw UserImportFileError(.empty) }
    return UserImportFile(rows: rows)
  }

  private static func check(_ rows: [Row], problems: [String]) -> [String] {
    var problems = problems
    var firstPlace: [String: String] = [:]
    for row in rows {
      do {
        try row.params.validate()
        if row.params.nickname.allSatisfy(\.isWhitespace) {
          problems.append("\(row.place): the nickname is empty (a user must be findable by name)")
        }
      } catch let error as UserManagerError {
        problems.append("\(row.place): \(error.description)")
      } catch {
        problems.append("\(row.place): \(error)")
      }
      if let earlier = firstPlace[row.params.userId] {
        problems.append("\(row.place): the user_id \(row.params.userId) is already on \(earlier)")
      } else {
        firstPlace[row.params.userId] = row.place
      }
    }
    return problems
  }

  private static func parseCSV(_ text: String) -> ([Row], [String]) {
    let records = CSV.records(text)
    let blank = { (record: CSV.Record) in record.fields.allSatisfy { $0.allSatisfy(\.isWhitespace) } }
    guard let header = records.first(where: { !blank($0) }) else { return ([], []) }
    let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    guard let idColumn = names.firstIndex(of: "user_id"), let nicknameColumn = names.firstIndex(of: "nickname") else {
      return ([], ["line \(header.line): the header must name the columns user_id,nickname[,profile_url]"])
    }
    let urlColumn = names.firstIndex(of: "profile_url")
    var rows: [Row] = []
    var problems: [String] = []
    for record in records where record.line > header.line && !blank(record) {
      if let problem = record.problem {
        problems.append("line \(record.line): \(problem)")
        continue
      }
      guard record.fields.count == names.count else {
        problems.append("line \(record.line): \(record.fields.count) fields where the header has \(names.count)")
        continue
      }
      let url = urlColumn.map { record.fields[$0] }.flatMap { $0.isEmpty ? nil : $0 }
      rows.append(
        Row(
          place: "line \(record.line)",
          params: UserCreationParams(
            userId: record.fields[idColumn], nickname: record.fields[nicknameColumn], profileURL: url)))
    }
    return (rows, problems)
  }

  private static func parseJSON(_ data: Data) -> ([Row], [String]) {
    guard let entries = try? JSONDecoder().decode([JSONEntry].self, from: data) else {
      return ([], ["the file is not a JSON array of {\"user_id\", \"nickname\", \"profile_url\"} objects"])
    }
    var rows: [Row] = []
    var problems: [String] = []
    for (index, entry) in entries.enumerated() {
      let place = "entry \(index + 1)"
      switch entry {
      case .user(let userId, let nickname, let url):
        rows.append(Row(place: place, params: UserCreationParams(userId: userId, nickname: nickname, profileURL: url)))
      case .problem(let problem):
        problems.append("\(place): \(problem)")
      }
    }
    return (rows, problems)
  }

  /// One element of a JSON import: a user, or what is wrong with it. Decoded straight from the bytes (no
  /// `JSONSerialization` tree of the whole file), and never failing for one bad entry, so that every one is listed.
  private enum JSONEntry: Decodable {
    case user(userId: String, nickname: String, profileURL: String?)
    case problem(String)

    private struct Key: CodingKey {
      var stringValue: String
      var intValue: Int? { nil }
      init(stringValue: String) { self.stringValue = stringValue }
      init?(intValue: Int) { nil }
    }

    private static let keys: Set<String> = ["user_id", "nickname", "profile_url"]

    init(from decoder: any Decoder) throws {
      guard let object = try? decoder.container(keyedBy: Key.self) else {
        self = .problem("not an object")
        return
      }
      let unknown = object.allKeys.map(\.stringValue).filter { !Self.keys.contains($0) }.sorted()
      guard unknown.isEmpty else {
        self = .problem(
          "unknown key \(unknown.joined(separator: ", ")) (the keys are user_id, nickname, profile_url)")
        return
      }
      guard let userId = try? object.decode(String.self, forKey: Key(stringValue: "user_id")),
        let nickname = try? object.decode(String.self, forKey: Key(stringValue: "nickname"))
      else {
        self = .problem("user_id and nickname must be strings")
        return
      }
      let urlKey = Key(stringValue: "profile_url")
      var url: String?
      if object.contains(urlKey), (try? object.decodeNil(forKey: urlKey)) != true {
        guard let value = try? object.decode(String.self, forKey: urlKey) else {
          self = .problem("profile_url must be a string")
          return
        }
        url = value.isEmpty ? nil : value
      }
      self = .user(userId: userId, nickname: nickname, profileURL: url)
    }
  }
}

/// Why an import file was refused; nothing of it was sent.
public struct UserImportFileError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong with the file.
  public enum Kind: String, Sendable, Hashable {
    /// Over ``UserImportFile/maxBytes``.
    case tooLarge
    /// Over ``UserImportFile/maxRows`` rows.
    case tooManyRows
    /// Not UTF-8 text.
    case notText
    /// A JSON object where an array of users belongs.
    case notAnArray
    /// Rows that cannot be created; ``UserImportFileError/problems`` lists them.
    case badRows
    /// No users at all.
    case empty
  }

  /// What is wrong.
  public let kind: Kind
  /// For `Kind.badRows`, each bad row with its place, in file order: `line 3: the nickname is empty …`.
  public let problems: [String]

  /// An error of `kind`.
  public init(_ kind: Kind, problems: [String] = []) {
    self.kind = kind
    self.problems = problems
  }

  /// One sentence, with at most the first 20 problems.
  public var description: String {
    switch kind {
    case .tooLarge: "The file is larger than \(UserImportFile.maxBytes >> 20) MiB, the import limit."
    case .tooManyRows: "The file has more than \(UserImportFile.maxRows) users, the import limit."
    case .notText: "The file is not UTF-8 text."
    case .notAnArray:
      "The file is a JSON object; an import file is a JSON array of {\"user_id\", \"nickname\", \"profile_url\"} "
        + "objects, or CSV."
    case .badRows:
      "\(problems.count) bad row\(problems.count == 1 ? "" : "s"): "
        + problems.prefix(20).joined(separator: "; ") + (problems.count > 20 ? "; and \(problems.count - 20) more" : "")
        + "."
    case .empty: "The file has no users."
    }
  }
}
