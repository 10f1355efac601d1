import Chat
import Domain
import Features
import Foundation
import KeelConcurrency
import Networking
import TestSupport

/// A chat server's admin calls for the settings screens: each call is recorded by name and arguments, can be held at
/// a gate, and answers from the fake's own workspace and channel, or with the failure the test set for its name.
final class FakeAdmin: Sendable {
  /// Every call made, as `name arguments`.
  let calls = Recorder<String>()
  /// Passed before every call answers: close it to hold answers back.
  let gate = Gate()
  /// The error a call of this name throws, if set.
  let failures = Locked<[String: any Error & Sendable]>([:])
  /// The members every members call answers.
  let members = Locked([FakeChat.me, FakeChat.ada, FakeChat.bob])

  private func call<Value>(_ name: String, _ arguments: String, _ answer: () -> Value) async throws -> Value {
    calls.record("\(name) \(arguments)")
    await gate.pass()
    if let failure = failures.withLock({ $0[name] }) { throw failure }
    return answer()
  }

  var client: ChatAdminClient {
    ChatAdminClient(
      channelMembers: { [self] id in try await call("channelMembers", id) { members.withLock { $0 } } },
      renameChannel: { [self] id, name in
        try await call("renameChannel", "\(id) \(name)") { channel(id, name: name, owner: "user-demo") }
      },
      deleteChannel: { [self] id in try await call("deleteChannel", id) {} },
      leaveChannel: { [self] id in
        try await call("leaveChannel", id) {
          var left = channel(id, name: "general", owner: "user-ada")
          left.joined = false
          return left
        }
      },
      transferChannel: { [self] id, user in
        try await call("transferChannel", "\(id) \(user)") { channel(id, name: "general", owner: user) }
      },
      createChannel: { [self] name, workspace in
        try await call("createChannel", "\(name) \(workspace)") {
          Conversation(
            id: "c-new", workspaceID: workspace, kind: .channel, name: name, joined: true, ownerID: "user-demo")
        }
      },
      workspaceMembers: { [self] id in try await call("workspaceMembers", id) { members.withLock { $0 } } },
      createWorkspace: { [self] name in
        try await call("createWorkspace", name) { Workspace(id: "w-new", name: name, ownerID: "user-demo") }
      },
      renameWorkspace: { [self] id, name in
        try await call("renameWorkspace", "\(id) \(name)") { Workspace(id: id, name: name, ownerID: "user-demo") }
      },
      deleteWorkspace: { [self] id in try await call("deleteWorkspace", id) {} },
      invite: { [self] email, id in
        try await call("invite", "\(email) \(id)") {
          members.withLock { $0.append(Member(id: "user-\(email)", nickname: email, email: email)) }
        }
      },
      transferWorkspace: { [self] id, user in
        try await call("transferWorkspace", "\(id) \(user)") { Workspace(id: id, name: "Lab", ownerID: user) }
      })
  }

  private func channel(_ id: String, name: String, owner: String) -> Conversation {
    Conversation(id: id, workspaceID: "w1", kind: .channel, name: name, joined: true, ownerID: owner)
  }

  /// A refusal as the chat service throws it for the server's `code` (such as `E403`) and HTTP `status`.
  static func refusal(_ code: String, status: Int) -> ChatError {
    var error = NetworkError(.server, "The server answered \(status) (\(code)).")
    error.statusCode = status
    error.serverError = ServerError(code: code, message: "refused by the fake server", status: status)
    let failure = RequestFailure(error)
    return ChatError(.refused, "Cannot do it: \(failure)", requestFailure: failure)
  }
}
