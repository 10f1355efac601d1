import Foundation
import Networking
import Realtime

/// The Socket.IO decoder's promises, whatever the bytes (they are what a server sends): no crash; a packet that
/// decodes is written back as text that decodes to the same packet; placeholders resolve against any attachments
/// or fail typed.
enum SocketIOFuzzing {
  static func check(_ input: Data) {
    let text = String(decoding: input, as: UTF8.self)
    guard case .message(let socketText)? = try? EnginePacket.decode(.text(text)) else { return }
    let packet: SocketPacket
    let attachments: Int
    do {
      (packet, attachments) = try SocketPacket.decode(socketText)
    } catch {
      guard error.kind == .invalidPacket else { fatalError("a decoding failure of kind \(error.kind)") }
      return
    }
    guard (0...SocketPacket.maxAttachments).contains(attachments) else {
      fatalError("\(attachments) attachments announced")
    }
    let written: String
    do {
      written = try packet.encoded().text
    } catch {
      fatalError("a decoded packet cannot be written back: \(error)")
    }
    guard let (again, _) = try? SocketPacket.decode(written), again == packet else {
      fatalError(
        "\(socketText.debugDescription) decoded, was written as \(written.debugDescription), read back differently")
    }
    if attachments > 0 {
      _ = try? packet.resolving((0..<attachments).map { Data([UInt8(truncatingIfNeeded: $0)]) })
    }
  }
}
