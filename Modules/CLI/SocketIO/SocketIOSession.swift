import Foundation
import KeelConcurrency
import KeelErrors
import Realtime

/// One run of `keel socketio`: the client, standard input's commands, and standard output's lines, until one of the
/// ways it ends.
struct SocketIOSession: Sendable {
  let client: SocketIOClient
  let namespace: String
  let timeout: Duration
  let duration: Duration

  /// A session with a client for `configuration` on the NIO WebSocket.
  init(configuration: SocketIOConfiguration, timeout: Duration, duration: Duration) throws {
    client = try SocketIOClient(configuration: configuration, transport: CommandTransport.webSocket)
    namespace = configuration.namespace
    self.timeout = timeout
    self.duration = duration
  }

  /// What happened on the client, not yet written, that the client may hold before it stops reading its connection:
  /// standard output that nobody reads slows the connection down instead of filling memory.
  static let unwrittenActivity = 256

  /// What the main loop reads: what happened on the client, or a reason to end.
  private enum Step: Sendable {
    /// What happened, and what to tell once it is written (the next one is read only then).
    case activity(SocketActivity, written: OneShot<Void>)
    case finish(ExitStatus, String?)
    /// `timeout` has passed since the start.
    case firstConnectionDeadline
  }

  /// Runs until the session ends, and returns the exit status with the sentence for standard error.
  func run() async -> (ExitStatus, String?) {
    let (steps, stepper) = AsyncStream<Step>.makeStream()
    let activity = client.activity(holdingAtMost: Self.unwrittenActivity)
    let forwarder = Task {
      for await item in activity {
        let written = OneShot<Void>()
        stepper.yield(.activity(item, written: written))
        await written.value()
      }
    }
    let deadline = Task {
      try? await Task.sleep(for: timeout)
      guard !Task.isCancelled else { return }
      stepper.yield(.firstConnectionDeadline)
    }
    let input = Task { await readCommands(into: stepper) }
    await client.connect()
    defer {
      forwarder.cancel()
      deadline.cancel()
      input.cancel()
    }

    var connected = false
    var everConnected = false
    var ending: (ExitStatus, String?)?
    for await step in steps {
      var finish: (ExitStatus, String?)?
      if case .activity(_, let written) = step { _ = written.fulfill(()) }
      switch step {
      case .firstConnectionDeadline:
        if !everConnected { finish = (.network, "No connection within \(seconds(timeout)).") }
      case .finish(let status, let message):
        finish = (status, message)
      case .activity(.state(let state), _):
        switch state {
        case .connected(let sid):
          connected = true
          everConnected = true
          print(SocketIOLines.connect(namespace: namespace, sid: sid))
        case .refused(let message):
          print(SocketIOLines.connectError(namespace: namespace, message: message))
          return ending ?? (.auth, "The server refused the connection: \(message.clause).")
        case .disconnected(let reason):
          if connected, let reason { print(SocketIOLines.disconnect(reason)) }
          connected = false
          if let ending { return ending }
          if reason == .ioServerDisconnect { return (.success, nil) }
        case .reconnecting(let attempt, let delay):
          print(SocketIOLines.reconnecting(attempt: attempt, delay: delay))
        case .connecting, .suspended:
          break
        }
      case .activity(.event(let event), _):
        print(SocketIOLines.event(event))
      }
      if let finish, ending == nil {
        ending = finish
        switch client.state {
        case .disconnected, .refused, .suspended: return finish
        default: Task { await client.disconnect() }
        }
      }
    }
    return ending ?? (.success, nil)
  }

  /// Emits what standard input says, line by line; at its end waits for the acknowledgements, stays `duration`, and
  /// asks the session to end.
  private func readCommands(into steps: AsyncStream<Step>.Continuation) async {
    let acks = AckLedger()
    var number = 0
    for await item in StandardInputLines.lines() {
      number += 1
      guard case .line(let line) = item else {
        steps.yield(.finish(.invalidInput, "Line \(number) of standard input is longer than 16 MiB."))
        return
      }
      switch SocketIOLines.command(line) {
      case .failure(let error):
        steps.yield(
          .finish(
            .invalidInput,
            "Line \(number) of standard input is not a command: \(error.reason). Expected "
              + #"{"emit":"NAME","args":[...]} (with "ack":true for an acknowledgement) or {"disconnect":true}."#))
        return
      case .success(.disconnect):
        // An acknowledgement already here is printed first; one still awaited is not, after the disconnect line.
        await acks.cancelAll()
        steps.yield(.finish(.success, nil))
        return
      case .success(.emit(let name, let args, let ack)):
        if let failure = await emit(name, args, ack: ack, line: number, acks: acks) {
          steps.yield(.finish(failure.0, failure.1))
          return
        }
      }
    }
    // Standard input may end before the connection is made (or be empty): the connection comes first, as the stay.
    guard await connected(within: timeout) else {
      steps.yield(.finish(.network, "No connection within \(seconds(timeout))."))
      return
    }
    let missing = await acks.awaitAll()
    if missing > 0 {
      steps.yield(
        .finish(
          .network, "\(missing) acknowledgement\(missing == 1 ? "" : "s") did not come within \(seconds(timeout))."))
      return
    }
    try? await Task.sleep(for: duration)
    steps.yield(.finish(.success, nil))
  }

  /// Emits once connected (waiting up to the timeout for a connection); an acknowledgement is awaited in the
  /// background and printed when it comes. Returns why the session must end, if it must.
  private func emit(_ name: String, _ args: [SocketValue], ack: Bool, line: Int, acks: AckLedger) async
    -> (ExitStatus, String)?
  {
    while true {
      guard await connected(within: timeout) else {
        return (.network, "No connection within \(seconds(timeout)) to emit line \(line).")
      }
      do {
        if ack {
          let (client, timeout) = (self.client, self.timeout)
          await acks.start {
            do {
              let args = try await client.emitWithAck(name, args, timeout: timeout)
              print(SocketIOLines.ack(line: line, args: args))
              return true
            } catch is CancellationError {
              return false  // the session is ending: nothing to say
            } catch {
              Output(json: false).note("keel: line \(line): no acknowledgement: \("\(error)".clause).")
              return false
            }
          }
        } else {
          try await client.emit(name, args)
        }
        return nil
      } catch let error as SocketIOError where error.kind == .notConnected || error.kind == .disconnected {
        continue  // lost between the check and the write: wait for the next connection
      } catch {
        return (.invalidInput, "Line \(line) cannot be emitted: \("\(error)".clause).")
      }
    }
  }

  /// Whether the client is connected now or becomes so within `wait`.
  private func connected(within wait: Duration) async -> Bool {
    if client.state.isConnected { return true }
    return await firstElement(of: client.states(), within: wait, where: \.isConnected) != nil
  }

  private func print(_ line: String) {
    Output.write(line + "\n", to: .standardOutput)
  }

  private func seconds(_ duration: Duration) -> String {
    let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    return value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
  }
}

/// The acknowledgements a session awaits, each in a task of its own.
private actor AckLedger {
  private var tasks: [Task<Bool, Never>] = []

  /// Starts awaiting one.
  func start(_ body: @escaping @Sendable () async -> Bool) {
    tasks.append(Task { await body() })
  }

  /// Stops awaiting them and returns once none can print any more: those that came are printed, the rest never are.
  func cancelAll() async {
    for task in tasks { task.cancel() }
    for task in tasks { _ = await task.value }
    tasks = []
  }

  /// Waits for every one (each ends by its own timeout) and returns how many did not come.
  func awaitAll() async -> Int {
    var missing = 0
    for task in tasks where !(await task.value) { missing += 1 }
    return missing
  }
}
