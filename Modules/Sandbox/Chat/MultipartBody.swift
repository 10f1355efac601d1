import Foundation

/// A `multipart/form-data` body (RFC 7578) as the chat backend reads one: its parts in order, each with its field
/// name, file name and content type if given, and its bytes. Anything malformed is E01, never a crash; the whole body
/// is already bounded by its route. Package-visible for the fuzzer (`KeelFuzz`), which checks it against Keel's own
/// encoder.
package struct MultipartBody {
  /// One part: its field name, its file name and content type if it gave them, its bytes.
  package struct Part {
    package let name: String
    package let filename: String?
    package let contentType: String?
    package let data: Data
  }

  /// The parts in the order they came.
  package let parts: [Part]

  /// The most parts a body may have: text, a client message id and five images, with room to spare.
  package static let maxParts = 32
  /// The largest header block of one part.
  static let maxHeaderSize = 8 * 1_024

  /// Reads `body`, sent with the `Content-Type` `contentType`; throws the backend's E01 for anything malformed.
  package init(_ body: Data, contentType: String?) throws {
    guard let contentType, let boundary = Self.boundary(in: contentType) else {
      throw BackendError.malformed("expected a multipart/form-data body with a boundary")
    }
    let delimiter = Data(("--" + boundary).utf8)
    let crlf = Data("\r\n".utf8)
    guard body.starts(with: delimiter) else {
      throw BackendError.malformed("the body does not start with its boundary")
    }
    var parts: [Part] = []
    var cursor = body.startIndex + delimiter.count
    while true {
      let rest = body[cursor...]
      if rest.starts(with: Data("--".utf8)) { break }  // the closing delimiter
      guard rest.starts(with: crlf) else { throw BackendError.malformed("a boundary is not followed by a line break") }
      let headersStart = cursor + 2
      guard let headersEnd = body.range(of: Data("\r\n\r\n".utf8), in: headersStart..<body.endIndex),
        headersEnd.lowerBound - headersStart <= Self.maxHeaderSize
      else { throw BackendError.malformed("a part's headers do not end") }
      let headers = String(decoding: body[headersStart..<headersEnd.lowerBound], as: UTF8.self)
      let contentStart = headersEnd.upperBound
      guard let next = body.range(of: crlf + delimiter, in: contentStart..<body.endIndex) else {
        throw BackendError.malformed("a part does not end with the boundary")
      }
      parts.append(try Self.part(headers: headers, data: Data(body[contentStart..<next.lowerBound])))
      guard parts.count <= Self.maxParts else { throw BackendError.malformed("more than \(Self.maxParts) parts") }
      cursor = next.upperBound
    }
    self.parts = parts
  }

  /// The text of the field `name`, if the body has one.
  func text(_ name: String) -> String? {
    parts.first { $0.name == name && $0.filename == nil }.map { String(decoding: $0.data, as: UTF8.self) }
  }

  /// The parts of the field `name` that are files.
  func files(_ name: String) -> [Part] { parts.filter { $0.name == name && $0.filename != nil } }

  /// The `boundary` parameter of a `multipart/form-data` content type, unquoted.
  private static func boundary(in contentType: String) -> String? {
    let fields = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
    guard fields.first?.lowercased() == "multipart/form-data" else { return nil }
    for field in fields.dropFirst() where field.lowercased().hasPrefix("boundary=") {
      var value = String(field.dropFirst("boundary=".count))
      if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
      return (1...70).contains(value.count) ? value : nil
    }
    return nil
  }

  private static func part(headers: String, data: Data) throws -> Part {
    var name: String?
    var filename: String?
    var contentType: String?
    for line in headers.components(separatedBy: "\r\n") {
      guard let colon = line.firstIndex(of: ":") else { throw BackendError.malformed("a part header has no colon") }
      let field = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      switch field {
      case "content-disposition":
        let parameters = Self.parameters(value)
        guard parameters.kind == "form-data" else { throw BackendError.malformed("a part is not form-data") }
        name = parameters.values["name"]
        filename = parameters.values["filename"]
      case "content-type":
        contentType = value
      default:
        continue
      }
    }
    guard let name, !name.isEmpty else { throw BackendError.malformed("a part has no field name") }
    return Part(name: name, filename: filename, contentType: contentType, data: data)
  }

  /// `form-data; name="a"; filename="b.png"` as its kind and parameters, quoted values unquoted and the browsers'
  /// escapes (`%22`, `%0D`, `%0A`) undone.
  private static func parameters(_ value: String) -> (kind: String, values: [String: String]) {
    var values: [String: String] = [:]
    var rest = Substring(value)
    let kind = rest.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased()
    rest = rest.drop { $0 != ";" }
    while rest.first == ";" {
      rest = rest.dropFirst().drop { $0 == " " }
      let key = rest.prefix { $0 != "=" && $0 != ";" }.lowercased()
      rest = rest.dropFirst(key.count)
      guard rest.first == "=" else { continue }
      rest = rest.dropFirst()
      var parsed: String
      if rest.first == "\"" {
        rest = rest.dropFirst()
        parsed = String(rest.prefix { $0 != "\"" })
        rest = rest.dropFirst(parsed.count + 1)
      } else {
        parsed = String(rest.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces)
        rest = rest.drop { $0 != ";" }
      }
      parsed = parsed.replacingOccurrences(of: "%22", with: "\"").replacingOccurrences(of: "%0D", with: "\r")
        .replacingOccurrences(of: "%0A", with: "\n")
      values[key] = parsed
      rest = rest.drop { $0 != ";" }
    }
    return (kind, values)
  }
}
