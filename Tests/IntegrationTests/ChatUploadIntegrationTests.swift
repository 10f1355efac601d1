import Foundation
import Logging
import Networking
import Sandbox
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// REQUIREMENTS C2 end to end: a message body built by `MultipartFormData`, written to disk and streamed by each
/// transport's `upload(_:fromFile:)`, is the message the Sandbox stores, its images byte for byte.
@Suite("Chat uploads against the Sandbox", .timeLimit(.minutes(3)))
struct ChatUploadIntegrationTests {
  @Test(
    "A text and three images, uploaded from a file, arrive whole; the same client message id again is one message",
    arguments: TransportKind.allCases)
  func uploadFromFile(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let transport = try #require(kind.transport as? any FileTransferTransport)
    let session = try await signIn(sandbox, over: transport)
    let authorization = ["Authorization": "Bearer \(session.access)"]
    func call(_ method: HTTPMethod, _ path: [String], _ body: [String: String]) async throws -> [String: Any] {
      let route = SandboxRoute(
        baseURL: sandbox.baseURL, path: EndpointPath(path), method: method, headers: authorization, body: .json(body))
      let data = try await HTTPClient(transport: transport).send(.data(route))
      return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
    let workspace = try #require(try await call(.post, ["v1", "workspaces"], ["name": "Keel"])["id"] as? String)
    let channel = try #require(
      try await call(.post, ["v1", "workspaces", workspace, "channels"], ["name": "general"])["id"] as? String)

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-upload-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    var form = MultipartFormData()
    form.append("three photos", name: "text")
    form.append("client-1", name: "clientMessageId")
    var photos: [Data] = []
    for index in 0..<3 {
      let photo =
        Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: UInt8(index), count: 300_000)
      let file = directory.appendingPathComponent("photo-\(index).png")
      try photo.write(to: file)
      try form.append(fileAt: file, name: "images")
      photos.append(photo)
    }
    let body = directory.appendingPathComponent("message.body")
    try form.write(to: body, limits: MultipartLimits(maxFiles: 5, allowedFileTypes: MultipartLimits.imageTypes))

    var request = URLRequest(url: sandbox.baseURL.appending(path: "v1/conversations/\(channel)/messages"))
    request.httpMethod = "POST"
    request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
    request.setValue("Bearer \(session.access)", forHTTPHeaderField: "Authorization")
    let sent = try await transport.upload(request, fromFile: body).response()
    #expect(sent.status == 201)
    let message = try #require(try JSONSerialization.jsonObject(with: sent.body) as? [String: Any])
    #expect(message["text"] as? String == "three photos")
    let images = try #require(message["images"] as? [String])
    #expect(images.count == 3)
    for (path, photo) in zip(images, photos) {
      var get = URLRequest(url: URL(string: sandbox.baseURL.absoluteString + path)!)
      get.setValue("Bearer \(session.access)", forHTTPHeaderField: "Authorization")
      #expect(try await transport.send(get).body == photo)
    }
    let again = try await transport.upload(request, fromFile: body).response()
    #expect(again.status == 200)
    #expect(
      (try JSONSerialization.jsonObject(with: again.body) as? [String: Any])?["id"] as? String == message["id"]
        as? String)
    await sandbox.stop()
  }
}
