import AsyncHTTPClient
import Foundation
import KeelConcurrency
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import Networking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// An `HTTPTransport` on AsyncHTTPClient and SwiftNIO: the transport for Linux and servers, where
/// URLSession is FoundationNetworking over libcurl (REQUIREMENTS A2).
///
/// ```swift
/// import Networking
///
/// let transport = NIOHTTPTransport()
/// let client = Networking.HTTPClient(transport: transport, interceptors: [RetryPolicy()])
/// // … share `client` between tasks and send requests through it …
/// _ = client
/// try await transport.shutdown()
/// ```
///
/// One transport is one AsyncHTTPClient with one connection pool; share it between clients and tasks. It runs on
/// SwiftNIO's process-wide event loop threads (one per core, started once, whatever the number of transports) unless
/// it is given a group of its own.
///
/// What the layers above see is what they see from `URLSessionTransport`: failures are `URLError`s with
/// the codes URLSession uses for the same circumstance (a refused connection is `.cannotConnectToHost`, a connection
/// the server closed is `.networkConnectionLost`, every timeout is `.timedOut`), so retries, offline inference and
/// token refresh behave the same; a cancelled calling task cancels the request and gets `CancellationError`. A
/// request's `timeoutInterval` bounds the whole exchange of ``send(_:)``, and the configuration's connect and read
/// timeouts bound each connection attempt and each wait for data.
///
/// Call ``shutdown()`` when done: it closes the pooled connections and waits for them. A transport released without
/// it is shut down in the background.
public final class NIOHTTPTransport: HTTPTransport, FileTransferTransport {
  /// How it connects, pools and bounds requests.
  public let configuration: NIOHTTPTransportConfiguration

  /// The AsyncHTTPClient that moves the bytes.
  let client: AsyncHTTPClient.HTTPClient
  /// Set by the first ``shutdown()``.
  private let shutDown = OneShot<Void>()

  /// A transport with its own connection pool on SwiftNIO's shared event loop threads.
  ///
  /// - Parameters:
  ///   - configuration: Timeouts, pool size, redirects, decompression and the in-memory body limit.
  ///   - eventLoopGroup: The threads it runs on; `MultiThreadedEventLoopGroup.singleton` by default, which is never
  ///     shut down. A group of the caller's stays the caller's to shut down, after this transport.
  public init(
    configuration: NIOHTTPTransportConfiguration = .init(),
    eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) {
    self.configuration = configuration
    var pool = AsyncHTTPClient.HTTPClient.Configuration.ConnectionPool(
      idleTimeout: TimeAmount(configuration.idleConnectionTimeout),
      concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, configuration.maxConnectionsPerHost))
    // A refused connection fails the request at once, as with URLSession, instead of being retried inside the pool
    // until the connect timeout: Keel's RetryPolicy decides retries, and offline inference needs the failure now.
    pool.retryConnectionEstablishment = false
    var settings = AsyncHTTPClient.HTTPClient.Configuration(
      redirectConfiguration: configuration.maxRedirects > 0
        ? .follow(max: configuration.maxRedirects, allowCycles: false) : .disallow,
      // No client-wide read timeout: AsyncHTTPClient re-arms it at every read of every request, which cost about a
      // tenth of the loopback throughput; an in-memory send has its whole-exchange deadline instead, and a file
      // transfer an idle watch of its own.
      timeout: .init(connect: TimeAmount(configuration.connectTimeout), read: nil),
      connectionPool: pool,
      decompression: configuration.decompresses ? .enabled(limit: .ratio(100)) : .disabled)
    // HTTP/1.1 keeps one request per connection in flight, which the pool size bounds; HTTP/2 is negotiated over TLS.
    settings.httpVersion = .automatic
    client = AsyncHTTPClient.HTTPClient(eventLoopGroup: eventLoopGroup, configuration: settings)
  }

  deinit {
    // AsyncHTTPClient requires a shutdown before release (a debug build traps without one); this one closes the
    // pool in the background for an owner that forgot.
    if shutDown.current == nil { client.shutdown { _ in } }
  }

  /// Closes every pooled connection and returns once they are closed. Requests still in flight fail with
  /// `URLError.cancelled`; a request sent after it fails the same way. Calling it again does nothing.
  public func shutdown() async throws {
    guard shutDown.fulfill(()) else { return }
    try await client.shutdown()
  }

  /// Sends `request` and returns the whole response, its body held in memory (at most
  /// ``NIOHTTPTransportConfiguration/maxResponseBodySize``).
  ///
  /// - Throws: `URLError` when there is no response (codes as URLSession's), `CancellationError` when the calling
  ///   task is cancelled.
  public func send(_ request: URLRequest) async throws -> RawResponse {
    let (url, method) = try Self.target(of: request)
    return try await mappingErrors(of: request) {
      // The delegate form of AsyncHTTPClient: the response is collected on the event loop and handed over once,
      // where `execute` and `collect(upTo:)` hand over the head and then each part of the body.
      let outbound = try AsyncHTTPClient.HTTPClient.Request(
        url: url, method: method, headers: Self.nioHeaders(request.allHTTPHeaderFields),
        body: request.httpBody.map { .bytes($0) })
      let task = client.execute(
        request: outbound, delegate: ResponseCollector(method: method, maxBodySize: configuration.maxResponseBodySize),
        eventLoop: .indifferent, deadline: deadline(for: request))
      return try await withTaskCancellationHandler {
        try await task.get()
      } onCancel: {
        task.cancel()
      }
    }
  }

  /// The deadline of a whole in-memory exchange: the request's `timeoutInterval` (60 seconds unless set).
  private func deadline(for request: URLRequest) -> NIODeadline {
    .now() + (TimeAmount(seconds: request.timeoutInterval) ?? TimeAmount(configuration.readTimeout))
  }

  /// Runs `body`, turning what NIO throws into a `URLError`, and any failure of a cancelled task into
  /// `CancellationError`.
  func mappingErrors<Result>(of request: URLRequest, _ body: () async throws -> Result) async throws -> Result {
    do {
      return try await body()
    } catch let error as CancellationError {
      throw error
    } catch  where Task.isCancelled {
      throw CancellationError()
    } catch {
      throw TransportErrorMapping.urlError(for: error, url: request.url)
    }
  }

  /// `request`'s URL, if its scheme is http or https, and its method (GET when it has none).
  static func target(of request: URLRequest) throws -> (URL, NIOHTTP1.HTTPMethod) {
    guard let url = request.url, let scheme = url.scheme,
      scheme == "http" || scheme == "https" || ["http", "https"].contains(scheme.lowercased())
    else {
      throw URLError(.unsupportedURL)
    }
    return (url, NIOHTTP1.HTTPMethod(rawValue: request.httpMethod ?? "GET"))
  }

  /// `fields` as NIO headers, in no particular order (a `URLRequest` keeps them in a dictionary).
  static func nioHeaders(_ fields: [String: String]?) -> HTTPHeaders {
    var headers = HTTPHeaders()
    guard let fields else { return headers }
    headers.reserveCapacity(fields.count + 2)
    for (name, value) in fields { headers.add(name: name, value: value) }
    return headers
  }

  /// AsyncHTTPClient's streaming request for `request`: its URL (http or https), method, headers and `body`, by
  /// default the request's own `httpBody`.
  static func outbound(_ request: URLRequest, body: HTTPClientRequest.Body? = nil) throws -> HTTPClientRequest {
    let (url, method) = try target(of: request)
    var outbound = HTTPClientRequest(url: url.absoluteString)
    outbound.method = method
    outbound.headers = nioHeaders(request.allHTTPHeaderFields)
    outbound.body = body ?? request.httpBody.map { .bytes(ByteBuffer(data: $0)) }
    return outbound
  }

  /// The response's headers; a name sent more than once has its values joined with ", ", as URLSession joins them.
  static func headers(_ fields: HTTPHeaders) -> [String: String] {
    var headers: [String: String] = [:]
    headers.reserveCapacity(fields.count)
    for (name, value) in fields {
      if let earlier = headers.updateValue(value, forKey: name) { headers[name] = earlier + ", " + value }
    }
    return headers
  }
}
