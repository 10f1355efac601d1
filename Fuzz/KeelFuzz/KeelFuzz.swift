import Domain
import Foundation

/// libFuzzer's entry point (`make fuzz` builds this target with `-sanitize=fuzzer,address`): each input goes to one
/// of Keel's decoders of untrusted bytes, chosen by its first byte, and each decoder's promises are checked. A
/// broken promise is a `fatalError`, which libFuzzer reports as a crash and saves as `crash-<hash>`.
///
/// - first byte 0 modulo 4: an import file (``UserImportFile``: CSV or JSON), the rest of the input;
/// - 1 modulo 4: an HTTP request to a Sandbox on 127.0.0.1, sent as it is over a new connection;
/// - 2 modulo 4: an Engine.IO packet's text, and the Socket.IO packet in it (``SocketIOFuzzing``);
/// - 3 modulo 4: a multipart body for the Sandbox's chat reader, raw or encoded by Keel (``MultipartFuzzing``).
@_cdecl("LLVMFuzzerTestOneInput")
public func keelFuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
  guard count > 0 else { return 0 }
  let input = Data(bytes: bytes + 1, count: count - 1)
  switch bytes[0] % 4 {
  case 0: ImportFuzzing.check(input)
  case 1: SandboxFuzzing.check(input)
  case 2: SocketIOFuzzing.check(input)
  default: MultipartFuzzing.check(input)
  }
  return 0
}

#if KEEL_FUZZING
  /// libFuzzer's driver (in the runtime `-sanitize=fuzzer` links), run with this target's entry point.
  @_silgen_name("LLVMFuzzerRunDriver")
  func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
  ) -> Int32

  /// The process's entry point in the fuzzing build. SwiftPM links every executable with `main` aliased to
  /// `<Target>_main` (so that tests can call it), which a library-mode build never defines; this one hands control
  /// to libFuzzer's driver, as libFuzzer's own `main` would.
  @_cdecl("KeelFuzz_main")
  func keelFuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { bytes, size in
      guard let bytes else { return 0 }
      return keelFuzzOneInput(bytes, size)
    }
  }
#else
  /// Built without the fuzzer (a plain `swift build`), the target replays inputs instead: each file named on the
  /// command line (a saved crash, a seed) goes through the same checks once, so a crash can be reproduced and
  /// debugged without the sanitizer build.
  @main
  enum Replay {
    static func main() throws {
      for path in CommandLine.arguments.dropFirst() {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        _ = data.withUnsafeBytes { buffer in
          keelFuzzOneInput(buffer.bindMemory(to: UInt8.self).baseAddress ?? UnsafePointer(bitPattern: 1)!, data.count)
        }
        FileHandle.standardError.write(Data("replayed \(path): no promise broken\n".utf8))
      }
    }
  }
#endif
