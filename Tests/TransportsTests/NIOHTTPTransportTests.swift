import Foundation
import Logging
import NIOTransports
import Networking
import Sandbox
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The AsyncHTTPClient transport against a real Sandbox on 127.0.0.1: answers, failures in URLSession's codes,
/// cancellation, dropped connections, streamed files.
@Suite(.timeLimit(.minutes(10))) struct NIOHTTPTransportTests {
  @Test func answersWithStatusHeadersAndBody() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let transport = NIOHTTPTransport()
    var request = URLRequest(url: sandbox.baseURL.appending(path: "v3/users"))
    request.setValue("T", forHTTPHeaderField: "Api-Token")
    let response = try await transport.send(request)
    #expect(response.status == 200)
    #expect(response.header("content-type")?.hasPrefix("application/json") == true)
    #expect(String(decoding: response.body, as: UTF8.self).contains("\"users\""))
    try await transport.shutdown()
    try await transport.shutdown()  // a second shutdown does nothing
    await sandbox.stop()
  }

  @Test func aRefusedConnectionFailsAtOnceAsURLSessionWould() async throws {
    // A port held so that it refuses, not a stopped server's, which another test's server may take meanwhile.
    let port = try RefusingPort()
    defer { withExtendedLifetime(port) {} }
    let url = URL(string: "http://127.0.0.1:\(port.number)/v3/users")!
    let transport = NIOHTTPTransport()
    let error = await #expect(throws: URLError.self) { try await transport.send(URLRequest(url: url)) }
    #expect(error?.code == .cannotConnectToHost)
    // Through the client: a transport failure that the retry policy and offline inference read as such.
    let client = Networking.HTTPClient(transport: transport)
    let failure = await #expect(throws: NetworkError.self) {
      try await client.send(APIRequest<Data>.data(Route(baseURL: url, path: [])))
    }
    #expect(failure?.kind == .transport)
    #expect(failure?.urlError?.code == .cannotConnectToHost)
    try await transport.shutdown()
  }

  @Test func aRequestAfterShutdownFailsAsCancelled() async throws {
    let transport = NIOHTTPTransport()
    try await transport.shutdown()
    let error = await #expect(throws: URLError.self) {
      try await transport.send(URLRequest(url: URL(string: "http://127.0.0.1:9/")!))
    }
    #expect(error?.code == .cancelled)
  }

  @Test func aSchemeOtherThanHTTPIsRefusedBeforeAnythingIsSent() async throws {
    let transport = NIOHTTPTransport()
    let error = await #expect(throws: URLError.self) {
      try await transport.send(URLRequest(url: URL(string: "ftp://127.0.0.1/file")!))
    }
    #expect(error?.code == .unsupportedURL)
    try await transport.shutdown()
  }

  @Test func aResponseOverTheLimitFailsInsteadOfFillingMemory() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let transport = NIOHTTPTransport(configuration: .init(maxResponseBodySize: 1_000))
    let error = await #expect(throws: URLError.self) {
      try await transport.send(URLRequest(url: URL(string: "\(sandbox.baseURL)/images/big.png?size=512")!))
    }
    #expect(error?.code == .dataLengthExceedsMaximum)
    try await transport.shutdown()
    await sandbox.stop()
  }

  /// A chunked body announces no length: the limit is checked as the parts arrive.
  @Test func aChunkedResponseOverTheLimitFailsAsItArrives() async throws {
    let part = String(repeating: "x", count: 600)
    let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + "258\r\n\(part)\r\n"
    let server = try CannedHTTPServer(answer: chunked + "258\r\n\(part)\r\n0\r\n\r\n")
    let url = URL(string: "http://127.0.0.1:\(server.port)/")!
    let fits = NIOHTTPTransport(configuration: .init(maxResponseBodySize: 1_200))
    #expect(try await fits.send(URLRequest(url: url)).body == Data((part + part).utf8), "the parts are joined")
    let small = NIOHTTPTransport(configuration: .init(maxResponseBodySize: 1_000))
    let error = await #expect(throws: URLError.self) { try await small.send(URLRequest(url: url)) }
    #expect(error?.code == .dataLengthExceedsMaximum)
    try await fits.shutdown()
    try await small.shutdown()
    server.stop()
  }

  /// A HEAD answer carries the length of the body a GET would get, but no body: that length is not held against it.
  @Test func aHeadAnswerIsNotRefusedForTheLengthItAnnounces() async throws {
    let server = try CannedHTTPServer(answer: "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\nX-Kind: head\r\n\r\n")
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/")!)
    request.httpMethod = "HEAD"
    let transport = NIOHTTPTransport(configuration: .init(maxResponseBodySize: 1_000))
    let response = try await transport.send(request)
    #expect(response.status == 200)
    #expect(response.header("x-kind") == "head")
    #expect(response.body.isEmpty)
    try await transport.shutdown()
    server.stop()
  }

  /// The Sandbox closes a pooled keep-alive connection after reading the request: the request fails at once with
  /// the code the retry policy retries (URLSession on Linux waited for its timeout instead), and with the policy the
  /// caller gets its answer.
  @Test func aDroppedPooledConnectionFailsAtOnceAndIsRetried() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let transport = NIOHTTPTransport()
    let users = Route(baseURL: sandbox.baseURL, path: ["v3", "users"], headers: ["Api-Token": "T"])
    let plain = Networking.HTTPClient(transport: transport)
    _ = try await plain.send(.data(users))  // the connection is now pooled
    try await sandbox.control.addFault(SandboxFault(route: "/v3/users", dropConnectionRate: 1, count: 1))
    var slow = try users.urlRequest()
    slow.timeoutInterval = 600  // a hang would be a timeout, and the test's limit would end it first
    let error = await #expect(throws: URLError.self) { try await transport.send(slow) }
    #expect(error?.code == .networkConnectionLost)

    try await sandbox.control.addFault(SandboxFault(route: "/v3/users", dropConnectionRate: 1, count: 1))
    let retrying = Networking.HTTPClient(
      transport: transport, interceptors: [RetryPolicy(baseDelay: .milliseconds(1), random: { 0 })])
    let answer = try await retrying.response(for: .data(users))
    #expect(answer.status == 200)
    #expect(answer.attempts == 2)
    #expect(try await sandbox.control.statistics().counter("droppedConnections") == 2)
    try await transport.shutdown()
    await sandbox.stop()
  }

  /// 100 uploads held by the server (a minute of injected latency) are cancelled at once, once each has handed its
  /// whole body to its connection (or, for the in-memory half, been sent): each ends with `CancellationError`, none
  /// with an answer, none hangs (the test's time limit), the process lives, and the transport goes on serving.
  ///
  /// Connections get a minute: under ThreadSanitizer, with every suite at once on two cores, opening 100 of them to
  /// the in-process Sandbox took more than the default 10 s, and a request still waiting for one failed with
  /// AsyncHTTPClient's `getConnectionFromPoolTimeout` (CI's TSan run). The test is about cancellation, not speed.
  @Test(.timeLimit(.minutes(3))) func cancellingAHundredUploadsInFlightEndsEachCleanly() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    try await sandbox.control.addFault(SandboxFault(route: "/v1/events/batch", latency: .seconds(60)))
    let transport = NIOHTTPTransport(
      configuration: .init(connectTimeout: .seconds(60), maxConnectionsPerHost: 100))
    let directory = try TemporaryDirectory()
    let file = directory.url.appending(path: "body.json")
    try Data(repeating: UInt8(ascii: " "), count: 256 * 1_024).write(to: file)
    var request = URLRequest(url: sandbox.baseURL.appending(path: "v1/events/batch"))
    request.httpMethod = "POST"
    request.setValue("T", forHTTPHeaderField: "Api-Token")
    request.timeoutInterval = 600  // the in-memory half's deadline; the test's limit ends a hang first
    let sent = Counter()
    let outcomes = Counter()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<100 {
        group.addTask { [request] in
          do {
            if index.isMultiple(of: 2) {
              for try await event in transport.upload(request, fromFile: file) {
                if case .progress(let progress) = event, progress.completedBytes == progress.expectedBytes {
                  sent.increment()
                }
              }
            } else {
              var inMemory = request
              inMemory.httpBody = Data(repeating: UInt8(ascii: " "), count: 256 * 1_024)
              sent.increment()  // counted when sent; the uploads above say when their bodies are gone
              _ = try await transport.send(inMemory)
            }
            Issue.record("upload \(index) was answered before it was cancelled")
          } catch is CancellationError {
            outcomes.increment()
          }
        }
      }
      #expect(await poll(for: .seconds(50)) { sent.value == 100 })
      group.cancelAll()
      try await group.waitForAll()
    }
    #expect(outcomes.value == 100)
    let after = try await transport.send(URLRequest(url: URL(string: "\(sandbox.baseURL)/images/a.png?size=8")!))
    #expect(after.status == 200)
    try await transport.shutdown()
    await sandbox.stop()
  }

  /// A transfer that stops moving fails with `timedOut` after the idle timeout, though it has no overall deadline.
  @Test func aStalledDownloadTimesOutWhenIdle() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    try await sandbox.control.addFault(SandboxFault(route: "/images/slow.png", latency: .seconds(30)))
    let transport = NIOHTTPTransport(configuration: .init(readTimeout: .milliseconds(200)))
    let directory = try TemporaryDirectory()
    let error = await #expect(throws: URLError.self) {
      _ = try await transport.download(
        URLRequest(url: URL(string: "\(sandbox.baseURL)/images/slow.png")!), to: directory.url.appending(path: "x")
      ).response()
    }
    #expect(error?.code == .timedOut)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    try await transport.shutdown()
    await sandbox.stop()
  }
}
