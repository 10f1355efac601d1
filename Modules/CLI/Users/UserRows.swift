import Domain
import Foundation

/// The users of an import file, read and checked in full before anything is sent: CSV with the header
/// `user_id,nickname,profile_url` (`profile_url` optional), or a JSON array of objects with those keys.
struct UserRows {
  /// One user and where it was in the file.
  struct Row {
    /// Where the row starts: `line 3` in CSV, `entry 3` in JSON.
    let place: String
    let params: UserCreationParams
  }

  /// Every row, in file order.
  let rows: [Row]

  /// The most problems listed before the rest are counted only.
  static let listedProblems = 20
  /// The largest import file, in bytes: 32 MiB, about 300,000 rows of typical users. Reading stops one byte past
  /// it, so an endless stream costs no more memory than this.
  static let maxBytes = 32 << 20
  /// The most users one import creates: 100,000, a day and more at one request per second.
  static let maxRows = 100_000

  /// Reads `path` (`-` is standard input), at most ``maxBytes`` of it.
  ///
  /// - Throws: ``CommandFailure`` of ``ExitStatus/noInput`` when the file cannot be read, or
  ///   ``ExitStatus/invalidInput`` for a file over the limits or listing every bad row (empty id, empty nickname,
  ///   too long, an id twice, a malformed line).
  static func read(_ path: String) throws -> UserRows {
    let data = try BoundedInput.read(path, limit: maxBytes)
    guard data.count <= maxBytes else {
      throw CommandFailure(
        .invalidInput,
        "\(path == "-" ? "Standard input" : path) is larger than \(maxBytes >> 20) MiB, the import limit; split it into smaller files. Nothing was sent.")
    }
    return try parse(data, from: path == "-" ? "standard input" : path)
  }

  /// The users of `data`, an import file's contents, checked in full; `path` names it in messages.
  static func parse(_ data: Data, from path: String) throws -> UserRows {
    guard let text = String(data: data, encoding: .utf8) else {
      throw CommandFailure(.invalidInput, "\(path) is not UTF-8 text; save it as UTF-8 CSV or JSON.")
    }
    let opening = text.first(where: { !$0.isWhitespace && $0 != "\u{FEFF}" })
    if opening == "{" {
      throw CommandFailure(
        .invalidInput,
        "\(path) is a JSON object; an import file is a JSON array of {\"user_id\", \"nickname\", \"profile_url\"} "
          + "objects, or CSV. Nothing was sent.")
    }
    let (rows, problems) = opening == "[" ? parseJSON(data) : parseCSV(text)
    guard rows.count + problems.count <= maxRows else {
      throw CommandFailure(
        .invalidInput,
        "\(path) has more than \(maxRows) users, the import limit; split it into smaller files. Nothing was sent.")
    }
    let checked = check(rows, problems: problems)
    guard checked.problems.isEmpty else {
      let shown = checked.problems.prefix(listedProblems).joined(separator: "; ")
      let more = checked.problems.count > listedProblems ? "; and \(checked.problems.count - listedProblems) more" : ""
      throw CommandFailure(
        .invalidInput,
        "\(path) has \(checked.problems.count) bad row\(checked.problems.count == 1 ? "" : "s"), so nothing was sent: "
          + shown + more)
    }
    guard !rows.isEmpty else { throw CommandFailure(.invalidInput, "\(path) has no users; nothing to import.") }
    return UserRows(rows: rows)
  }

  private static func check(_ rows: [Row], problems: [String]) -> (rows: [Row], problems: [String]) {
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
    return (rows, problems)
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
