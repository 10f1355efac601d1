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

  /// Reads `file`.
  ///
  /// - Throws: ``CommandFailure`` of ``ExitStatus/noInput`` when the file cannot be read, or
  ///   ``ExitStatus/invalidInput`` listing every bad row (empty id, empty nickname, too long, an id twice, a
  ///   malformed line).
  static func read(_ path: String) throws -> UserRows {
    let url = URL(fileURLWithPath: path)
    let data: Data
    if path == "-" {
      data = FileHandle.standardInput.readDataToEndOfFile()
    } else {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw CommandFailure(.noInput, "Cannot read \(path): no such file. Check the path.")
      }
      guard !isDirectory.boolValue else {
        throw CommandFailure(.noInput, "Cannot read \(path): it is a directory. Give a CSV or JSON file.")
      }
      do {
        data = try Data(contentsOf: url)
      } catch {
        throw CommandFailure(.noInput, "Cannot read \(path): \(Self.reason(error)). Check its permissions.")
      }
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw CommandFailure(.invalidInput, "\(path) is not UTF-8 text; save it as UTF-8 CSV or JSON.")
    }
    let isJSON = text.first(where: { !$0.isWhitespace && $0 != "\u{FEFF}" }) == "["
    let (rows, problems) = isJSON ? parseJSON(data) : parseCSV(text)
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
    guard let entries = try? JSONSerialization.jsonObject(with: data) as? [Any] else {
      return ([], ["the file is not a JSON array of {\"user_id\", \"nickname\", \"profile_url\"} objects"])
    }
    let keys: Set<String> = ["user_id", "nickname", "profile_url"]
    var rows: [Row] = []
    var problems: [String] = []
    for (index, entry) in entries.enumerated() {
      let place = "entry \(index + 1)"
      guard let object = entry as? [String: Any] else {
        problems.append("\(place): not an object")
        continue
      }
      let unknown = object.keys.filter { !keys.contains($0) }.sorted()
      guard unknown.isEmpty else {
        problems.append(
          "\(place): unknown key \(unknown.joined(separator: ", ")) (the keys are user_id, nickname, profile_url)")
        continue
      }
      guard let userId = object["user_id"] as? String, let nickname = object["nickname"] as? String else {
        problems.append("\(place): user_id and nickname must be strings")
        continue
      }
      guard object["profile_url"] == nil || object["profile_url"] is NSNull || object["profile_url"] is String else {
        problems.append("\(place): profile_url must be a string")
        continue
      }
      let url = (object["profile_url"] as? String).flatMap { $0.isEmpty ? nil : $0 }
      rows.append(Row(place: place, params: UserCreationParams(userId: userId, nickname: nickname, profileURL: url)))
    }
    return (rows, problems)
  }

  private static func reason(_ error: any Error) -> String {
    let error = error as NSError
    if error.domain == NSCocoaErrorDomain, error.code == NSFileReadNoSuchFileError { return "no such file" }
    if error.domain == NSCocoaErrorDomain, error.code == NSFileReadNoPermissionError { return "permission denied" }
    return error.localizedDescription
  }
}
