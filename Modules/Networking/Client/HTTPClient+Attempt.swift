import Foundation
import KeelErrors
import Logging

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPClient {

  /// The transport that streams `request`'s body file or its download; `nil` when it has neither.
  func fileTransport<Response>(for request: APIRequest<Response>) throws -> (any FileTransferTransport)? {
    guard request.endpoint.body.file != nil || request.destination != nil else { return nil }
    guard let files = transport.fileTransfers else {
      let what = request.destination == nil ? "its body is a file" : "it downloads to a file"
      throw NetworkError.invalidRequest(
        "cannot send \(request.endpoint.method) \(request.endpoint.path): \(what), and \(type(of: transport)) cannot "
          + "stream one (it is not a FileTransferTransport); nothing was sent")
    }
    return files
  }

  /// One attempt: send (streaming the body file or the download through `files` when there is one), validate the
  /// status, decode.
  func send<Response>(
    _ urlRequest: URLRequest, for request: APIRequest<Response>, files: (any FileTransferTransport)?
  ) async throws -> APIResponse<Response> {
    logger.debug("\(self.describe(urlRequest))")
    let start = now()
    let raw: RawResponse
    do {
      try Task.checkCancellation()
      if let files, let destination = request.destination {
        raw = try await files.download(urlRequest, to: destination).response(progress: request.progress)
      } else if let files, let file = request.endpoint.body.file {
        raw = try await files.upload(urlRequest, fromFile: file).response(progress: request.progress)
      } else {
        raw = try await transport.send(urlRequest)
      }
    } catch let error as CancellationError {
      throw error
    } catch  where Task.isCancelled {
      // The transport's own word for it (`URLError.cancelled`, a NIO error): the caller gets Swift's.
      throw CancellationError()
    } catch let error as URLError {
      var failure = NetworkError(
        .transport, "Transport failed for \(request.endpoint.method) \(request.endpoint.path): \(error.code).")
      failure.urlError = error
      throw failure
    } catch let error as NetworkError {
      throw error
    } catch {
      // A transport of another kind (NIO, a custom one) keeps the promise that the client throws NetworkError.
      var failure = NetworkError(
        .transport, "Transport failed for \(request.endpoint.method) \(request.endpoint.path): \("\(error)".clause).")
      failure.underlying = error
      throw failure
    }
    let duration = now() - start
    logger.debug("\(self.describe(raw, to: urlRequest, after: duration))")
    guard request.acceptableStatus.contains(raw.status) else { throw failure(for: raw, of: request.endpoint) }
    do {
      return APIResponse(
        value: try request.decode(raw), status: raw.status, headers: raw.headers, duration: duration, attempts: 1)
    } catch {
      throw decodingFailure(error, raw: raw, endpoint: request.endpoint)
    }
  }

  func failure(for raw: RawResponse, of endpoint: any Endpoint) -> NetworkError {
    let what = "\(endpoint.method) \(endpoint.path)"
    var error: NetworkError
    if let serverError = serverErrorDecoders.lazy.compactMap({ $0.serverError(status: raw.status, body: raw.body) })
      .first
    {
      error = NetworkError(.server, "The server refused \(what): \(serverError.description.clause).")
      error.serverError = serverError
    } else {
      error = NetworkError(.status, "The server answered \(what) with HTTP \(raw.status).")
    }
    error.statusCode = raw.status
    error.body = raw.body.prefix(64 * 1_024)
    error.headers = raw.headers
    return error
  }

  func decodingFailure(_ error: any Error, raw: RawResponse, endpoint: any Endpoint) -> NetworkError {
    let path: String
    switch error as? DecodingError {
    case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?, .dataCorrupted(let context)?:
      path = Self.render(context.codingPath)
    case .keyNotFound(let key, let context)?:
      path = Self.render(context.codingPath + [key])
    default:
      path = ""
    }
    // Redacted: this description reaches logs and screens, and a body may hold tokens.
    let excerpt = redaction.maskFields(in: String(decoding: raw.body.prefix(200), as: UTF8.self))
    var failure = NetworkError(
      .decoding,
      "Cannot decode the response of \(endpoint.method) \(endpoint.path) at \(path.isEmpty ? "the top" : path): "
        + "\(error). Body starts: \(excerpt)")
    failure.decodingPath = path
    failure.statusCode = raw.status
    failure.body = raw.body.prefix(64 * 1_024)
    failure.underlying = error
    return failure
  }

  /// `users[2].created_at`
  static func render(_ path: [any CodingKey]) -> String {
    path.reduce(into: "") { text, key in
      if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
    }
  }

  func describe(_ request: URLRequest) -> String {
    "→ \(request.httpMethod ?? "GET") \(redaction.render(url: request.url)) "
      + "[\(redaction.render(headers: request.allHTTPHeaderFields ?? [:]))] \(redaction.render(body: request.httpBody))"
  }

  func describe(_ raw: RawResponse, to request: URLRequest, after duration: Duration) -> String {
    let milliseconds = Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
    return "← \(raw.status) \(request.httpMethod ?? "GET") \(redaction.render(url: request.url)) "
      + "(\(String(format: "%.1f", milliseconds)) ms) [\(redaction.render(headers: raw.headers))] "
      + "\(redaction.render(body: raw.body))"
  }
}
