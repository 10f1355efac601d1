import Foundation
import Networking
import Testing

@testable import Realtime

/// REQUIREMENTS R1: the Socket.IO v5 and Engine.IO v4 wire formats, as socket.io-parser writes and reads them.
@Suite("Socket.IO packets")
struct SocketPacketTests {
  @Test(
    "Every packet type is written as socket.io-parser writes it",
    arguments: [
      (SocketPacket(.connect), "0"),
      (SocketPacket(.connect, namespace: "/chat", data: ["token": "abc"]), #"0/chat,{"token":"abc"}"#),
      (SocketPacket(.disconnect, namespace: "/chat"), "1/chat,"),
      (SocketPacket.event("hello", [1, "two"], namespace: "/"), #"2["hello",1,"two"]"#),
      (SocketPacket.event("hello", [], namespace: "/chat", id: 12), #"2/chat,12["hello"]"#),
      (SocketPacket(.ack, id: 7, data: ["ok", nil]), #"37["ok",null]"#),
      (SocketPacket(.connectError, data: ["message": "Not authorized"]), #"4{"message":"Not authorized"}"#),
    ])
  func encoding(packet: SocketPacket, text: String) throws {
    let (encoded, attachments) = try packet.encoded()
    #expect(encoded == text)
    #expect(attachments.isEmpty)
    let (decoded, count) = try SocketPacket.decode(text)
    #expect(decoded == packet)
    #expect(count == 0)
  }

  @Test("Binary data becomes numbered placeholders and attachments, and is put back in place when they come")
  func binary() throws {
    let first = Data([0, 1, 2])
    let second = Data(repeating: 0xFF, count: 300)
    let packet = SocketPacket.event("upload", [.binary(first), ["nested": .binary(second)]], namespace: "/", id: 3)
    let (text, attachments) = try packet.encoded()
    #expect(text.hasPrefix("52-3[\"upload\","))
    #expect(attachments == [first, second])
    #expect(text.contains(#"{"_placeholder":true,"num":0}"#))

    let (header, count) = try SocketPacket.decode(text)
    #expect(header.kind == .binaryEvent)
    #expect(count == 2)
    let resolved = try header.resolving(attachments)
    #expect(resolved.event?.name == "upload")
    #expect(resolved.event?.args == [.binary(first), ["nested": .binary(second)]])

    let (ack, ackAttachments) = try SocketPacket(.ack, namespace: "/chat", id: 9, data: [.binary(first)]).encoded()
    #expect(ack == #"61-/chat,9[{"_placeholder":true,"num":0}]"#)
    #expect(ackAttachments == [first])
  }

  @Test(
    "Malformed packets are typed errors, never a crash",
    arguments: [
      "", "7", "x", "2", "2{}", "2[]", "2[1]", "3[]", "0[]", "1{}", "4[]", "5[\"a\"]", "5x-[\"a\"]", "51[\"a\"]",
      "51001-[\"a\"]", "2[\"a\"", "21234567890123456[\"a\"]", "/chat,2",
    ])
  func malformed(text: String) {
    let error = #expect(throws: SocketIOError.self) { try SocketPacket.decode(text) }
    #expect(error?.kind == .invalidPacket)
  }

  @Test("A placeholder that names no attachment is an error")
  func placeholderOutOfRange() throws {
    let (header, count) = try SocketPacket.decode(#"51-["a",{"_placeholder":true,"num":1}]"#)
    #expect(count == 1)
    let error = #expect(throws: SocketIOError.self) { try header.resolving([Data([1])]) }
    #expect(error?.kind == .invalidPacket)
  }

  @Test("A non-binary packet keeps a placeholder-shaped object as the object it is")
  func placeholderInTextPacket() throws {
    let (packet, _) = try SocketPacket.decode(#"2["a",{"_placeholder":true,"num":0}]"#)
    #expect(packet.event?.args == [["_placeholder": true, "num": 0]])
  }

  @Test("NaN and infinities are refused before anything is written")
  func unrepresentable() {
    let error = #expect(throws: SocketIOError.self) {
      try SocketPacket.event("n", [["value": .number(.nan)]], namespace: "/").encoded()
    }
    #expect(error?.kind == .invalidArguments)
  }

  @Test("Engine.IO: the handshake, ping and pong, messages and binary messages")
  func engine() throws {
    let open = try EnginePacket.decode(
      .text(#"0{"sid":"abc","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#))
    #expect(
      open == .open(EngineHandshake(sid: "abc", pingInterval: 25_000, pingTimeout: 20_000, maxPayload: 1_000_000)))
    #expect(try EnginePacket.decode(.text("2")) == .ping(""))
    #expect(EnginePacket.pong("").message == .text("3"))
    #expect(try EnginePacket.decode(.text("42[\"a\"]")) == .message("2[\"a\"]"))
    #expect(try EnginePacket.decode(.binary(Data([1]))) == .binary(Data([1])))
    #expect(try EnginePacket.decode(.text("1")) == .close)
    for bad in [
      "", "9", #"0{"sid":"a"}"#, #"0{"sid":"a","upgrades":[],"pingInterval":0,"pingTimeout":1,"maxPayload":1}"#,
    ] {
      #expect(throws: SocketIOError.self) { try EnginePacket.decode(.text(bad)) }
    }
  }

  @Test("The Engine.IO URL: ws or wss, /socket.io/ unless a path is given, the query kept")
  func engineURL() throws {
    func url(_ text: String, namespace: String = "/") throws -> String {
      try SocketIOConfiguration(url: URL(string: text)!, namespace: namespace).engineURL().absoluteString
    }
    #expect(try url("http://127.0.0.1:3000") == "ws://127.0.0.1:3000/socket.io/?EIO=4&transport=websocket")
    #expect(try url("https://chat.example.com/") == "wss://chat.example.com/socket.io/?EIO=4&transport=websocket")
    #expect(try url("ws://h/realtime/?v=2") == "ws://h/realtime/?v=2&EIO=4&transport=websocket")
    for bad in ["ftp://h", "http://"] {
      #expect(throws: SocketIOError.self) { try url(bad) }
    }
    #expect(throws: SocketIOError.self) { try url("http://h", namespace: "chat") }
  }
}
