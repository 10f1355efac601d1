import Foundation
import NIOTransports
import Realtime
import Sandbox
import TestSupport
import Testing

/// The Sandbox console in a real headless browser: Debian's Chromium, driven by Playwright for Python
/// (Tests/Browser/console_browser.py, its versions pinned in Tests/Browser/requirements.txt), against a Sandbox that
/// serves the console, with a Keel `SocketIOClient` connected for the page to see and to drop. Here, in the realtime
/// tests, for that client.
///
/// It times the page (10,000 requests shown within a second), and a browser and 10,000 requests beside every other
/// suite on two cores slowed the suites that wait on real time until they failed. So it runs on its own, `make
/// browser-test` (a step of `make ci`, after `swift test`), and `swift test` lists it as skipped unless
/// `KEEL_BROWSER_TEST=1`.
@Suite(
  "The Sandbox console in a browser", .timeLimit(.minutes(5)),
  .enabled(
    if: ProcessInfo.processInfo.environment["KEEL_BROWSER_TEST"] == "1",
    "times the page in Chromium: run alone with `make browser-test` (KEEL_BROWSER_TEST=1)"))
struct SandboxConsoleBrowserTests {
  /// Debian's Chromium (`apt-get install chromium`, as .ci/run does), or the one `KEEL_CHROMIUM` names.
  static func chromium() -> Result<String, PeerUnavailable> {
    let path = ProcessInfo.processInfo.environment["KEEL_CHROMIUM"] ?? "/usr/bin/chromium"
    return FileManager.default.isExecutableFile(atPath: path)
      ? .success(path)
      : .failure(
        PeerUnavailable(
          "Chromium is needed for the console's browser tests and is not at \(path): `apt-get install chromium` "
            + "(what .ci/run does), or set KEEL_CHROMIUM to a Chromium."))
  }

  /// Loads; shows a test client's request within a second; a fault set from the page fails the next request and its
  /// removal restores it; drops a connected `SocketIOClient`; nothing without the key or from another origin; no
  /// console error, no request to another host; 10,000 requests rendered within a second of opening the page.
  @Test("The page, live, each control, its guards and 10,000 requests, in Chromium")
  func console() async throws {
    let chromium = try Self.chromium().get()
    let python = try await onOwnThread { PythonEnvironment.browser.findOrInstall() }.get()
    let key = "browser-k3y"
    let (sandbox, token) = try await SandboxSocketIOTests.sandbox { configuration in
      configuration.controlKey = key
      configuration.servesConsole = true
    }
    // Never reconnecting: dropped by the page, it stays down, and no upgrade of its own joins the journal.
    let client = try SocketIOClient(
      configuration: SocketIOConfiguration(
        url: sandbox.baseURL, auth: { ["token": .string(token)] }, reconnection: .never,
        connectTimeout: .seconds(20)),
      transport: SandboxSocketIOTests.transport)
    await client.connect()
    #expect(await SandboxSocketIOTests.connected(client))

    let renderLimit = "1"
    let script = PythonEnvironment.packageRoot.appendingPathComponent("Tests/Browser/console_browser.py").path
    let run = try await ChildProcess.run(
      python,
      arguments: [
        script, "check", "--base", sandbox.baseURL.absoluteString.trimmingCharacters(in: ["/"]), "--key", key,
        "--chromium", chromium, "--render-limit", renderLimit,
      ],
      killAfter: .seconds(240))
    let report = (run.lines + [run.errors]).joined(separator: "\n")
    // What each check saw, timings included: kept with `swift test --attachments-path DIR`.
    Attachment.record(report, named: "console_browser.txt")
    #expect(run.status == 0, "\(report)")
    let passed = Set(run.lines.compactMap { $0.hasPrefix("ok ") ? String($0.dropFirst(3).prefix { $0 != ":" }) : nil })
    for check in [
      "no key, no page", "key to cookie", "live journal", "sockets listed", "fault from the page",
      "fault removed from the page", "socket drop", "another origin",
      "10,000 requests rendered within \(renderLimit) s",
      "readable without JavaScript", "filters and detail",
      "no console errors", "no other host",
    ] {
      #expect(passed.contains(check), "\(check): \(report)")
    }
    #expect(
      await PythonSocketIOTests.reaches(client) { if case .disconnected = $0 { true } else { false } },
      "the page's drop disconnected the client")
    await client.disconnect()
    await sandbox.stop()
  }
}
