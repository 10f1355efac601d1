import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a password typed at the terminal without echoing it, as `getpass` does, but with Ctrl-C and Ctrl-D still
/// meaning what they mean at a prompt: `getpass` turns the terminal's signals off, so a Ctrl-C became part of the
/// password. The terminal is put in raw mode for the line and always restored.
enum PasswordPrompt {
  /// How the prompt ended without a password.
  enum Abort: Error {
    /// Ctrl-C.
    case interrupted
    /// Ctrl-D, or the terminal closed.
    case endOfInput
  }

  /// The line typed after `prompt` (written to standard error), without echo. Backspace and Ctrl-U edit it.
  ///
  /// - Throws: ``Abort`` for Ctrl-C or Ctrl-D; nothing is kept of what was typed.
  static func typed(after prompt: String, from descriptor: Int32 = STDIN_FILENO) throws(Abort) -> String {
    var saved = termios()
    guard tcgetattr(descriptor, &saved) == 0 else { throw .endOfInput }
    var raw = saved
    // No echo, byte by byte, and Ctrl-C and Ctrl-D as bytes, so that they are handled here, with the terminal
    // restored first, rather than by a signal that would leave it silent.
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
    withUnsafeMutableBytes(of: &raw.c_cc) { characters in
      characters[Int(VMIN)] = 1
      characters[Int(VTIME)] = 0
    }
    FileHandle.standardError.write(Data(prompt.utf8))
    tcsetattr(descriptor, TCSAFLUSH, &raw)
    defer {
      tcsetattr(descriptor, TCSAFLUSH, &saved)
      FileHandle.standardError.write(Data("\n".utf8))
    }
    var bytes: [UInt8] = []
    while true {
      var byte: UInt8 = 0
      let count = read(descriptor, &byte, 1)
      if count < 0 && errno == EINTR { continue }
      guard count == 1 else { throw .endOfInput }
      switch byte {
      case 0x03: throw .interrupted
      case 0x04: throw .endOfInput
      case 0x0A, 0x0D: return String(decoding: bytes, as: UTF8.self)
      case 0x7F, 0x08: removeLastCharacter(&bytes)
      case 0x15: bytes.removeAll()
      default: bytes.append(byte)
      }
    }
  }

  /// Drops the last UTF-8 character: its continuation bytes, then its first byte.
  private static func removeLastCharacter(_ bytes: inout [UInt8]) {
    while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }
    if !bytes.isEmpty { bytes.removeLast() }
  }
}
