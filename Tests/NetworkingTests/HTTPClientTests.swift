import Foundation
import Networking
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// REQUIREMENTS U10, A2, A3: typed results and typed errors, over a fake transport.
@Suite("HTTPClient", .timeLimit(.minutes(3)))
struct HTTPClientTests {
  struct User: Decodable, Equatable {
    let userID: String
    let createdAt: Int

    enum CodingKeys: String, CodingKey {
      case userID = "user_id"
      case createdAt = "created_at"
    }
  }

  @Test("A 2xx response is decoded; status, headers and duration come with it")
  func success() async throws {
    let transport = FakeTransport(
      FakeTransport.json(200, #"{"user_id":"alice","created_at":1}"#, headers: ["X-Trace": "t1"]))
    let response = try await HTTPClient(transport: transport).response(
      for: APIRequest<User>.json(TestRouter.user(id: "alice")))
    #expect(response.value == User(userID: "alice", createdAt: 1))
    #expect(response.status == 200)
    #expect(response.headers["X-Trace"] == "t1")
    #expect(transport.requests.map(\.url?.path) == ["/base/v3/users/alice"])
  }

  @Test("Error bodies are decoded by the decoders given, in order: a flagged numeric code, a string errorCode")
  func serverErrors() async throws {
    let transport = FakeTransport(
      FakeTransport.json(400, #"{"error":true,"code":400201,"message":"\"User\" not found."}"#),
      FakeTransport.json(401, #"{"errorCode":"E05","message":"Access token expired."}"#),
      FakeTransport.json(503, "<html>busy</html>"))
    let client = HTTPClient(
      transport: transport,
      serverErrorDecoders: [
        JSONServerErrorDecoder(codeField: "code", requiring: "error"), JSONServerErrorDecoder(codeField: "errorCode"),
      ])
    let request = APIRequest<User>.json(TestRouter.user(id: "x"))

    let sendbird = await #expect(throws: NetworkError.self) { try await client.send(request) }
    #expect(sendbird?.kind == .server)
    #expect(sendbird?.serverError == ServerError(code: "400201", message: #""User" not found."#, status: 400))
    #expect(sendbird?.statusCode == 400)

    let backend = await #expect(throws: NetworkError.self) { try await client.send(request) }
    #expect(backend?.serverError?.code == "E05")

    let unknown = await #expect(throws: NetworkError.self) { try await client.send(request) }
    #expect(unknown?.kind == .status)
    #expect(unknown?.statusCode == 503)
    #expect(unknown?.body == Data("<html>busy</html>".utf8))
  }

  @Test("Without decoders, an error body is kept but read as no backend's: HTTPClient knows no backend's shape")
  func noDecodersByDefault() async throws {
    let client = HTTPClient(transport: FakeTransport(FakeTransport.json(401, #"{"errorCode":"E05"}"#)))
    let error = await #expect(throws: NetworkError.self) {
      try await client.send(APIRequest<User>.json(TestRouter.user(id: "x")))
    }
    #expect(error?.serverError == nil)
    #expect(error?.statusCode == 401)
    #expect(error?.body == Data(#"{"errorCode":"E05"}"#.utf8))
  }

  @Test("A body that does not decode is a decoding error naming the path that failed and showing the body")
  func decodingError() async throws {
    let transport = FakeTransport(FakeTransport.json(200, #"{"user_id":"alice","created_at":"yesterday"}"#))
    let error = await #expect(throws: NetworkError.self) {
      try await HTTPClient(transport: transport).send(APIRequest<User>.json(TestRouter.user(id: "alice")))
    }
    #expect(error?.kind == .decoding)
    #expect(error?.decodingPath == "created_at")
    #expect(error?.description.contains("yesterday") == true)
  }

  @Test("An invalid request is refused before anything is sent")
  func invalidRequestSendsNothing() async throws {
    let transport = FakeTransport()
    let error = await #expect(throws: NetworkError.self) {
      try await HTTPClient(transport: transport).send(.empty(TestRouter.unencodable))
    }
    #expect(error?.kind == .invalidRequest)
    #expect(transport.requests.isEmpty)
  }

  @Test(
    "A transport failure is a transport NetworkError, its own `cancelled` too; a cancelled caller gets CancellationError"
  )
  func transportAndCancellation() async throws {
    let transport = FakeTransport(
      { _ in throw URLError(.timedOut) }, { _ in throw URLError(.cancelled) },
      { _ in
        withUnsafeCurrentTask { $0?.cancel() }
        throw URLError(.cancelled)
      })
    let client = HTTPClient(transport: transport)
    let timeout = await #expect(throws: NetworkError.self) { try await client.send(.data(TestRouter.user(id: "a"))) }
    #expect(timeout?.kind == .transport)
    #expect(timeout?.urlError?.code == .timedOut)
    // A transport that gives up on its own (a rejected certificate) says `cancelled` with nobody cancelling.
    let refused = await #expect(throws: NetworkError.self) { try await client.send(.data(TestRouter.user(id: "a"))) }
    #expect(refused?.kind == .transport)
    #expect(refused?.urlError?.code == .cancelled)
    await #expect(throws: CancellationError.self) { try await client.send(.data(TestRouter.user(id: "a"))) }
  }

  @Test("A transport that throws something other than URLError still gives a transport NetworkError")
  func foreignTransportError() async throws {
    struct ChannelClosed: Error {}
    let error = await #expect(throws: NetworkError.self) {
      try await HTTPClient(transport: FakeTransport { _ in throw ChannelClosed() }).send(
        .empty(TestRouter.user(id: "a")))
    }
    #expect(error?.kind == .transport)
    #expect(error?.underlying is ChannelClosed)
  }

  @Test("acceptableStatus widens or narrows what counts as success")
  func acceptableStatus() async throws {
    let transport = FakeTransport(FakeTransport.json(404, "{}"))
    var request = APIRequest<Data>.data(TestRouter.user(id: "a"))
    request.acceptableStatus = 200...404
    #expect(try await HTTPClient(transport: transport).send(request) == Data("{}".utf8))
  }
}
