import Foundation
import Networking
import TestSupport
import Testing

@testable import Domain

/// Each Domain service throws one error family; a failed request is its `requestFailed` kind with a
/// ``RequestFailure`` that a caller reads without `import Networking`, and cancellation is `CancellationError`.
/// The mapping is pure logic that needs no server; the cancelled batch stops while it waits for the limiter, not the
/// server, and `ResilienceIntegrationTests` shows a request cancelled in flight against the Sandbox.
@Suite struct RequestFailureTests {
  @Test(
    "Every kind of the HTTP client's error maps to one reason; the status, the server's code and message are kept",
    arguments: [
      (NetworkError.Kind.invalidRequest, RequestFailure.Kind.invalidRequest), (.transport, .transport),
      (.status, .server), (.server, .server), (.decoding, .decoding), (.rateLimited, .rateLimited),
      (.sessionExpired, .sessionExpired),
    ])
  func reasons(kind: NetworkError.Kind, reason: RequestFailure.Kind) {
    var error = NetworkError(kind, "The server said no.")
    error.statusCode = 409
    error.serverError = ServerError(code: "400202", message: "exists", status: 409)
    error.urlError = URLError(.timedOut)

    let failure = RequestFailure(error)

    #expect(failure.kind == reason)
    #expect(failure.description == "The server said no.")
    #expect(failure.statusCode == 409)
    #expect(failure.serverCode == "400202")
    #expect(failure.serverMessage == "exists")
    #expect(failure.urlError?.code == .timedOut)
    #expect((failure.underlying as? NetworkError)?.kind == kind)
  }

  @Test("A caller classifies any service's failed request through ServiceError, whichever service threw it")
  func oneClassification() async throws {
    let failure = RequestFailure(NetworkError(.rateLimited, "Not sent."))
    let errors: [any Error] = [
      UserManagerError.requestFailed(failure), SessionError(.requestFailed, "No.", requestFailure: failure),
      ImageLoaderError.requestFailed(failure),
    ]
    for error in errors {
      #expect((error as? any ServiceError)?.requestFailure?.kind == .rateLimited, "\(type(of: error))")
    }
  }

  @Test("Wrapping turns the HTTP client's error into the service's and lets cancellation through as it is")
  func wrapping() async {
    let wrapped = await #expect(throws: UserManagerError.self) {
      try await RequestFailure.wrapping(UserManagerError.requestFailed) { throw NetworkError(.transport, "Offline.") }
    }
    #expect(wrapped?.kind == .requestFailed)
    #expect(wrapped?.requestFailure?.kind == .transport)
    await #expect(throws: CancellationError.self) {
      try await RequestFailure.wrapping(UserManagerError.requestFailed) { throw CancellationError() }
    }
  }

  @Test("A createUsers call cancelled mid-batch throws CancellationError; the users created by then are cached")
  func cancelledBatch() async throws {
    let harness = try UsersHarness.initialized()
    let params = ["a", "b", "c"].map { UserCreationParams(userId: $0, nickname: "N") }
    let probe = TaskProbe { try await harness.manager.createUsers(params: params) }
    // The first is sent at once; the second waits a second for the limiter.
    #expect(await eventually { harness.server.sent.count == 1 })

    probe.cancel()

    #expect(await probe.error() is CancellationError)
    #expect(harness.server.sent.count == 1, "nothing more was sent")
    #expect(harness.store.users().map(\.userId) == ["a"])
  }
}
