/// A small RFC 4180 reader: fields separated by commas, quoted with `"` when they hold commas, quotes (doubled) or
/// line breaks; `\n` or `\r\n` between records.
enum CSV {
  /// One record, the line it starts on (from 1), and what is wrong with it, if anything.
  struct Record {
    var line: Int
    var fields: [String]
    var problem: String?
  }

  /// Every record of `text`.
  static func records(_ text: String) -> [Record] {
    var records: [Record] = []
    var record = Record(line: 1, fields: [])
    var field = ""
    var inQuotes = false
    var afterQuote = false
    var line = 1
    var characters = text.makeIterator()
    var pending: Character?
    while let character = pending ?? characters.next() {
      pending = nil
      if inQuotes {
        if character == "\"" {
          let next = characters.next()
          if next == "\"" {
            field.append("\"")
          } else {
            inQuotes = false
            afterQuote = true
            pending = next
          }
        } else {
          if character.isNewline { line += 1 }
          field.append(character)
        }
        continue
      }
      switch character {
      case "\"" where field.isEmpty && !afterQuote:
        inQuotes = true
      case ",":
        record.fields.append(field)
        field = ""
        afterQuote = false
      case "\n", "\r\n", "\r":
        record.fields.append(field)
        records.append(record)
        line += 1
        record = Record(line: line, fields: [])
        field = ""
        afterQuote = false
      default:
        if afterQuote || character == "\"" {
          record.problem = record.problem ?? "a quote inside a field that does not start with one"
        }
        field.append(character)
      }
    }
    if inQuotes { record.problem = "a quoted field is not closed" }
    if !field.isEmpty || !record.fields.isEmpty || inQuotes {
      record.fields.append(field)
      records.append(record)
    }
    return records
  }
}
