import Foundation
import Logging
import Sandbox
import TestSupport
import Testing

/// SandboxAPI §7's files over real HTTP: any type beside the images, names made safe, served to members only with an
/// ETag, gone with their message, every limit typed, and nothing kept of a body cut short.
@Suite("Sandbox chat files", .timeLimit(.minutes(3)))
struct ChatFilesTests {
  /// A multipart body of `text` and `files` parts, each with its file name and content type.
  static func body(text: String, files: [(filename: String, type: String, data: Data)]) -> (Data, String) {
    let boundary = "files-\(UUID().uuidString)"
    var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\n\(text)\r\n".utf8)
    for file in files {
      body.append(
        Data(
          ("--\(boundary)\r\nContent-Disposition: form-data; name=\"files\"; filename=\"\(file.filename)\"\r\n"
            + "Content-Type: \(file.type)\r\n\r\n").utf8))
      body.append(file.data)
      body.append(Data("\r\n".utf8))
    }
    body.append(Data("--\(boundary)--\r\n".utf8))
    return (body, "multipart/form-data; boundary=\(boundary)")
  }

  func post(_ room: ChatMessagesTests.Room, text: String, files: [(filename: String, type: String, data: Data)])
    async throws -> HTTPExchange
  {
    let (body, type) = Self.body(text: text, files: files)
    return try await room.client.send(
      "POST", "/v1/conversations/\(room.channel)/messages", raw: body,
      headers: room.ann.merging(["Content-Type": type]) { $1 })
  }

  @Test("Files are kept with their safe names and types, served to members with an ETag, and go with their message")
  func served() async throws {
    try await withSandbox { client in
      let room = try await ChatMessagesTests().room(client)
      let pdf = Data("%PDF-1.7 a report".utf8)
      let sent = try await post(
        room, text: "two files",
        files: [
          ("../../etc/pass\u{1}wd", "application/pdf", pdf),
          ("notes", "text plain", Data("notes".utf8)),
        ])
      #expect(sent.status == 201, "\(String(decoding: sent.body, as: UTF8.self))")
      let files = try #require(sent.json["files"] as? [[String: Any]])
      #expect(files.map { $0["name"] as? String } == ["_.._etc_pass_wd", "notes"])
      #expect(files.map { $0["contentType"] as? String } == ["application/pdf", "application/octet-stream"])
      #expect(files.map { $0["size"] as? Int } == [pdf.count, 5])
      let path = try #require(files.first?["url"] as? String)

      let fetched = try await client.send("GET", path, headers: room.bob)
      #expect(fetched.status == 200 && fetched.body == pdf)
      #expect(fetched.header("Content-Type") == "application/pdf")
      let etag = try #require(fetched.header("ETag"))
      let again = try await client.send("GET", path, headers: room.bob.merging(["If-None-Match": etag]) { $1 })
      #expect(again.status == 304 && again.body.isEmpty)

      // Someone outside the conversation learns nothing; an image's route does not serve a file.
      let cat = try await client.send(
        "POST", "/v1/auth/signup", json: ["email": "cat@example.com", "password": "password-1"])
      let catToken = try #require(cat.json["accessToken"] as? String)
      #expect(try await client.send("GET", path, headers: ["Authorization": "Bearer \(catToken)"]).status == 404)
      let asImage = path.replacingOccurrences(of: "chat-files", with: "chat-images")
      #expect(try await client.send("GET", asImage, headers: room.bob).status == 404)

      // Deleted with its message.
      let id = try #require(sent.json["id"] as? String)
      let deleted = try await client.send(
        "DELETE", "/v1/conversations/\(room.channel)/messages/\(id)", headers: room.ann)
      #expect(deleted.status == 200 && (deleted.json["files"] as? [Any])?.isEmpty == true)
      #expect(try await client.send("GET", path, headers: room.bob).status == 404)
    }
  }

  @Test("Six files (E13), one over 25 MiB (E14), over 50 MiB together (E15): refused, nothing stored")
  func limits() async throws {
    // The helper's hour-long access token: on a loaded machine the four large bodies outlive a minute.
    try await withSandbox { client in
      let room = try await ChatMessagesTests().room(client)
      let small = ("a.txt", "text/plain", Data("a".utf8))
      let six = try await post(room, text: "six", files: Array(repeating: small, count: 6))
      #expect(six.status == 400 && six.json["errorCode"] as? String == "E13", "\(six.json)")
      let over = try await post(
        room, text: "big", files: [("big.bin", "application/octet-stream", Data(count: (25 << 20) + 1))])
      #expect(over.status == 400 && over.json["errorCode"] as? String == "E14", "\(over.json)")
      let twenty = ("t.bin", "application/octet-stream", Data(count: 20 << 20))
      let together = try await post(room, text: "sixty", files: [twenty, twenty, twenty])
      #expect(together.status == 400 && together.json["errorCode"] as? String == "E15", "\(together.json)")
      let exact = try await post(
        room, text: "exactly 25 MiB", files: [("25.bin", "application/octet-stream", Data(count: 25 << 20))])
      #expect(exact.status == 201, "\(exact.json)")
      let page = try await client.send("GET", "/v1/conversations/\(room.channel)/messages", headers: room.bob)
      #expect((page.json["messages"] as? [[String: Any]])?.map { $0["text"] as? String } == ["exactly 25 MiB"])
    }
  }

  @Test("A body cut short (an upload cancelled midway) stores nothing")
  func cutShort() async throws {
    try await withSandbox { client in
      let room = try await ChatMessagesTests().room(client)
      let port = try #require(client.sandbox.baseURL.port)
      let head =
        "POST /v1/conversations/\(room.channel)/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Authorization: \(room.ann["Authorization"] ?? "")\r\nContent-Type: multipart/form-data; boundary=b\r\n"
        + "Content-Length: \(10 << 20)\r\n\r\n"
        + "--b\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\ncut\r\n"
        + "--b\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a\"\r\n\r\n"
      _ = try await SandboxSecurityTests.raw(port: port, head + String(repeating: "a", count: 1 << 20))
      let page = try await client.send("GET", "/v1/conversations/\(room.channel)/messages", headers: room.bob)
      #expect(page.status == 200)
      #expect((page.json["messages"] as? [Any])?.isEmpty == true, "\(page.json)")
    }
  }
}
