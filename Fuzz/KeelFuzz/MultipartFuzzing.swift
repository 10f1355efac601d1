import Foundation
import Networking
import Sandbox

/// The Sandbox's multipart reader (SandboxAPI §7's message bodies) against anything, and against Keel's encoder:
///
/// - an input whose first byte is even is a raw body: its first line the `Content-Type`, the rest the body. Whatever
///   it holds, reading it ends in parts or a refusal, never a crash; the parts are at most ``MultipartBody/maxParts``
///   and hold no more bytes than the body.
/// - an odd first byte makes text fields from the rest (split at `0xFF`, each a name and a value split at `0xFE`),
///   encodes them with `MultipartFormData`, and reads them back: every field Keel writes must come back as written
///   (names with quotes and line breaks are escaped by the encoder and unescaped by the reader; names with `%` are
///   left out, as the shared escaping cannot tell `%22` written from `"` escaped).
enum MultipartFuzzing {
  static func check(_ input: Data) {
    guard let mode = input.first else { return }
    let rest = input.dropFirst()
    if mode % 2 == 0 { raw(Data(rest)) } else { roundTrip(Data(rest)) }
  }

  private static func raw(_ input: Data) {
    let newline = input.firstIndex(of: UInt8(ascii: "\n")) ?? input.endIndex
    let contentType = String(decoding: input[..<newline], as: UTF8.self)
    let body = Data(input[min(newline + 1, input.endIndex)...])
    guard let read = try? MultipartBody(body, contentType: contentType) else { return }
    guard read.parts.count <= MultipartBody.maxParts else { fatalError("\(read.parts.count) parts were read") }
    let bytes = read.parts.reduce(0) { $0 + $1.data.count }
    guard bytes <= body.count else { fatalError("the parts hold \(bytes) bytes of a \(body.count)-byte body") }
  }

  private static func roundTrip(_ input: Data) {
    let fields = input.split(separator: 0xFF, omittingEmptySubsequences: false).prefix(MultipartBody.maxParts)
      .map { field -> (name: String, value: String) in
        let halves = field.split(separator: 0xFE, maxSplits: 1, omittingEmptySubsequences: false)
        return (
          String(decoding: halves[0], as: UTF8.self),
          halves.count > 1 ? String(decoding: halves[1], as: UTF8.self) : ""
        )
      }
      // A name with `%` is left out: the browsers' escaping that the encoder and reader share leaves `%` as it is, so
      // a name holding `%22` reads back as `"`. Keel's own names (`text`, `clientMessageId`, `images`) have none.
      .filter { !$0.name.isEmpty && !$0.name.contains("%") }
    guard !fields.isEmpty else { return }
    var form = MultipartFormData()
    for field in fields { form.append(field.value, name: field.name) }
    guard let body = try? form.encoded() else { return }  // over a limit: refused before anything is written
    let read: MultipartBody
    do {
      read = try MultipartBody(body, contentType: form.contentType)
    } catch {
      fatalError("Keel's own body was refused (\(error)): \(fields.map(\.name))")
    }
    let written = fields.map { "\($0.name)=\($0.value)" }
    let back = read.parts.map { "\($0.name)=\(String(decoding: $0.data, as: UTF8.self))" }
    guard written == back else { fatalError("wrote \(written.debugDescription), read \(back.debugDescription)") }
  }
}
