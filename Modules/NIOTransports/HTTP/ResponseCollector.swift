import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Networking

/// Collects one whole response for ``NIOHTTPTransport/send(_:)``: the final head (after any redirects) and the body in
/// one buffer, refused past a size limit as soon as the head announces more or the bytes pass it.
///
/// It is the delegate form of what `execute` and `collect(upTo:)` do, without their async body stream: the response
/// reaches the calling task once, through the task's future, instead of a head and then each part of the body.
///
/// `@unchecked Sendable`: AsyncHTTPClient calls every method on the request's event loop, one call after another, and
/// the response leaves through the request's future, which orders it before the caller reads it. The body's buffer,
/// often a slice of the socket's receive buffer, is copied out and let go of on the event loop as the request ends,
/// never by whichever thread frees the collector: swift-nio reuses that buffer once it is uniquely owned.
final class ResponseCollector: HTTPClientResponseDelegate,
  @unchecked Sendable  // one event loop touches its state, one call at a time (see above)
{
  typealias Response = RawResponse
  /// The request this collector answers, as AsyncHTTPClient passes it to each call.
  typealias RequestTask = AsyncHTTPClient.HTTPClient.Task<RawResponse>

  /// The final response's head, once received.
  private var head: HTTPResponseHead?
  /// The body so far; nil until its first part.
  private var body: ByteBuffer?
  /// The most body bytes accepted: ``NIOHTTPTransportConfiguration/maxResponseBodySize``.
  private let maxBodySize: Int
  /// A HEAD request's answer announces a length it does not carry.
  private let announcesNoBody: Bool

  /// A collector for one request of `method`, accepting at most `maxBodySize` body bytes.
  init(method: NIOHTTP1.HTTPMethod, maxBodySize: Int) {
    self.maxBodySize = maxBodySize
    announcesNoBody = method == .HEAD
  }

  func didReceiveHead(task: RequestTask, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
    if !announcesNoBody, let length = head.headers.first(name: "content-length").flatMap({ Int($0) }),
      length > maxBodySize
    {
      return task.eventLoop.makeFailedFuture(NIOTooManyBytesError(maxBytes: maxBodySize))
    }
    self.head = head
    return task.eventLoop.makeSucceededVoidFuture()
  }

  func didReceiveBodyPart(task: RequestTask, _ part: ByteBuffer) -> EventLoopFuture<Void> {
    guard (body?.readableBytes ?? 0) + part.readableBytes <= maxBodySize else {
      return task.eventLoop.makeFailedFuture(NIOTooManyBytesError(maxBytes: maxBodySize))
    }
    if body == nil {
      body = part
    } else {
      var part = part
      body?.writeBuffer(&part)
    }
    return task.eventLoop.makeSucceededVoidFuture()
  }

  func didReceiveError(task: RequestTask, _ error: any Error) { body = nil }

  func didFinishRequest(task: RequestTask) throws -> Response {
    defer { body = nil }
    // AsyncHTTPClient finishes a request only after its head; a missing one is a broken exchange, not an answer.
    guard let head else { throw HTTPClientError.remoteConnectionClosed }
    return RawResponse(
      status: Int(head.status.code), headers: NIOHTTPTransport.headers(head.headers),
      body: body.map { Data(buffer: $0) } ?? Data())
  }
}
