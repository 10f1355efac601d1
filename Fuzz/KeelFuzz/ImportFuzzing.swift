import Domain
import Foundation

/// The import parsers' promises, whatever the bytes: no crash, and a file that parses holds only users that the
/// user manager would accept, each id once, within the limits.
enum ImportFuzzing {
  static func check(_ input: Data) {
    let file: UserImportFile
    do {
      file = try UserImportFile.parse(input)
    } catch {
      if error.kind == .badRows, error.problems.isEmpty { fatalError("bad rows without a listed problem") }
      return
    }
    guard !file.rows.isEmpty, file.rows.count <= UserImportFile.maxRows else {
      fatalError("a parsed file with \(file.rows.count) rows")
    }
    var ids: Set<String> = []
    for row in file.rows {
      do {
        try row.params.validate()
      } catch {
        fatalError("\(row.place) parsed but does not validate: \(error)")
      }
      guard ids.insert(row.params.userId).inserted else { fatalError("\(row.place): an id twice") }
    }
  }
}
