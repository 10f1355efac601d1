import Foundation
import KeelJSON

/// A Socket.IO v5 packet: `<type>[<attachments>-][<namespace>,][<id>][<JSON>]`, the namespace written only when it is
/// not `/`, followed for a binary packet by its attachments, one WebSocket binary message each.
package struct SocketPacket: Sendable, Hashable {
  /// The packet type, the first character on the wire.
  package enum Kind: Int, Sendable, CaseIterable {
    /// Join a namespace (client, with the auth payload), or joined (server, with the socket's id).
    case connect = 0
    /// Leave a namespace.
    case disconnect = 1
    /// An event: `["name", args…]`.
    case event = 2
    /// The acknowledgement of an event: `[args…]`.
    case ack = 3
    /// The server refused the CONNECT: `{"message": …}`.
    case connectError = 4
    /// An event with attachments.
    case binaryEvent = 5
    /// An acknowledgement with attachments.
    case binaryAck = 6

    var isBinary: Bool { self == .binaryEvent || self == .binaryAck }
  }

  /// The most attachments one packet may announce: input size is bounded.
  package static let maxAttachments = 1_000

  /// The type.
  package var kind: Kind
  /// The namespace, `/` by default.
  package var namespace: String
  /// The acknowledgement id, for an event that asks for one and for its acknowledgement.
  package var id: Int?
  /// The payload, binaries in place.
  package var data: SocketValue?

  /// A packet of `kind` in `namespace`.
  package init(_ kind: Kind, namespace: String = "/", id: Int? = nil, data: SocketValue? = nil) {
    self.kind = kind
    self.namespace = namespace
    self.id = id
    self.data = data
  }

  /// An event named `name` with `args`; a binary event when any argument holds binary data.
  package static func event(_ name: String, _ args: [SocketValue], namespace: String, id: Int? = nil) -> SocketPacket {
    SocketPacket(.event, namespace: namespace, id: id, data: .array([.string(name)] + args))
  }

  /// The event's name and arguments, for an event packet.
  package var event: (name: String, args: [SocketValue])? {
    guard kind == .event || kind == .binaryEvent, case .array(let values)? = data,
      case .string(let name)? = values.first
    else { return nil }
    return (name, Array(values.dropFirst()))
  }

  /// The acknowledgement's arguments, for an ack packet.
  package var ackArguments: [SocketValue]? {
    guard kind == .ack || kind == .binaryAck, case .array(let values)? = data else { return nil }
    return values
  }

  // MARK: - Encoding

  /// The packet's text and its attachments. An event or ack carrying binary data is sent as its binary kind.
  ///
  /// - Throws: `SocketIOError.Kind.invalidArguments` when the payload has no JSON form (an infinity or NaN).
  package func encoded() throws(SocketIOError) -> (text: String, attachments: [Data]) {
    var kind = self.kind
    var text = ""
    var attachments: [Data] = []
    var json: JSONValue?
    if let data {
      guard data.isRepresentable else {
        throw SocketIOError(.invalidArguments, "An argument is an infinity or NaN, which JSON cannot carry.")
      }
      (json, attachments) = data.extractingAttachments()
    }
    if !attachments.isEmpty {
      if kind == .event { kind = .binaryEvent }
      if kind == .ack { kind = .binaryAck }
    }
    text += String(kind.rawValue)
    if kind.isBinary { text += "\(attachments.count)-" }
    if namespace != "/" { text += namespace + "," }
    if let id { text += String(id) }
    if let json {
      // Sorted keys: the same packet is the same text every time (a placeholder reads {"_placeholder":true,"num":0}).
      // Written directly, not through `JSONEncoder`, whose encoder object per value cost more than the rest of a send.
      var writer = JSONWriter(sortsKeys: true)
      writer.write(json)
      text += String(decoding: writer.bytes, as: UTF8.self)
    }
    return (text, attachments)
  }

  // MARK: - Decoding

  /// The packet in `text`, and how many attachments are to follow it. A binary packet's placeholders are resolved by
  /// ``resolving(_:)`` once its attachments have come.
  ///
  /// - Throws: `SocketIOError.Kind.invalidPacket` for anything that is not a Socket.IO v5 packet, including a payload
  ///   of the wrong shape for its type.
  package static func decode(_ text: String) throws(SocketIOError) -> (packet: SocketPacket, attachments: Int) {
    let bytes = Array(text.utf8)
    var index = 0
    guard let first = bytes.first, let kind = Kind(rawValue: Int(first) - Int(UInt8(ascii: "0"))) else {
      throw invalid("unknown packet type", text)
    }
    index = 1
    var attachments = 0
    if kind.isBinary {
      let start = index
      while index < bytes.count, isDigit(bytes[index]), index - start < 7 { index += 1 }
      guard index > start, index < bytes.count, bytes[index] == UInt8(ascii: "-"),
        let count = Int(String(decoding: bytes[start..<index], as: UTF8.self)), count <= maxAttachments
      else { throw invalid("a binary packet without a valid attachment count", text) }
      attachments = count
      index += 1
    }
    var namespace = "/"
    if index < bytes.count, bytes[index] == UInt8(ascii: "/") {
      let start = index
      while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
      namespace = String(decoding: bytes[start..<index], as: UTF8.self)
      if index < bytes.count { index += 1 }
    }
    var id: Int?
    if index < bytes.count, isDigit(bytes[index]) {
      let start = index
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
      guard index - start <= 15 else { throw invalid("an acknowledgement id of more than 15 digits", text) }
      id = Int(String(decoding: bytes[start..<index], as: UTF8.self))
    }
    var data: SocketValue?
    if index < bytes.count {
      let json: JSONValue
      do {
        json = try JSONValue(parsingUTF8: bytes[index...])
      } catch {
        throw invalid("a payload that is not JSON", text)
      }
      // Placeholders stay objects until the attachments come; a packet that is not binary has none.
      data = try SocketValue.resolving(json, attachments: nil)
    }
    let packet = SocketPacket(kind, namespace: namespace, id: id, data: data)
    try packet.validatePayload(text)
    return (packet, attachments)
  }

  /// This packet with each placeholder replaced by its attachment.
  ///
  /// - Throws: `SocketIOError.Kind.invalidPacket` for a placeholder whose number names no attachment.
  package func resolving(_ attachments: [Data]) throws(SocketIOError) -> SocketPacket {
    guard let data else { return self }
    let (json, _) = data.extractingAttachments()
    var resolved = self
    resolved.data = try SocketValue.resolving(json, attachments: attachments)
    return resolved
  }

  /// The payload each type allows (socket.io-parser's rules): CONNECT an object or none, DISCONNECT none,
  /// CONNECT_ERROR an object or a string, an event a non-empty array starting with its name, an ack an array.
  private func validatePayload(_ text: String) throws(SocketIOError) {
    let valid: Bool
    switch kind {
    case .connect:
      if case .object? = data { valid = true } else { valid = data == nil }
    case .disconnect:
      valid = data == nil
    case .connectError:
      switch data {
      case .object?, .string?: valid = true
      default: valid = false
      }
    case .event, .binaryEvent:
      valid = event != nil
    case .ack, .binaryAck:
      valid = ackArguments != nil && id != nil
    }
    guard valid else { throw Self.invalid("a payload of the wrong shape for its type", text) }
  }

  private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

  private static func invalid(_ what: String, _ text: String) -> SocketIOError {
    // The packet's start only: a payload may be large, and may hold what the user typed.
    SocketIOError(.invalidPacket, "A Socket.IO packet with \(what): \(text.prefix(40).debugDescription).")
  }
}
