import Foundation
import KeelConcurrency
import KeelErrors
import Logging
import Networking

extension SocketIOClient {
  /// One connection, from opening the WebSocket until it ends.
  func connectOnce() async -> Outcome {
    generation += 1
    let live = LiveConnection(generation: generation)
    self.live = live
    fanOut.publish(.state(.connecting))
    let generation = self.generation
    live.timer = timers.after(configuration.connectTimeout) { [weak self] in await self?.connectTimedOut(generation) }
    let attempt = Task { await self.attempt(generation) }
    live.task = attempt
    let outcome = await withTaskCancellationHandler {
      await attempt.value
    } onCancel: {
      attempt.cancel()
    }
    await end(live)
    return outcome
  }

  func attempt(_ generation: Int) async -> Outcome {
    guard let live, live.generation == generation else { return .ended(.ioClientDisconnect) }
    do {
      let socket = try await transport.connect(to: engineURL, headers: configuration.headers)
      live.socket = socket
      try Task.checkCancellation()
      var inbound = socket.messages.makeAsyncIterator()
      guard let first = try await inbound.next() else {
        throw SocketIOError(.invalidPacket, "The server closed the connection before its handshake.")
      }
      guard case .open(let handshake) = try EnginePacket.decode(first) else {
        throw SocketIOError(.invalidPacket, "The server's first packet is not the Engine.IO handshake.")
      }
      live.handshake = handshake
      live.lastPing = now()
      startWatchdog(live)
      let auth: SocketValue?
      do {
        auth = try await configuration.auth()
      } catch {
        return .refused("The auth provider failed: \("\(error)".clause).")
      }
      try Task.checkCancellation()
      try await send(SocketPacket(.connect, namespace: configuration.namespace, data: auth), on: live)
      // On the connection's own executor, if it has one (NIO's event loop): each message goes from the socket to
      // the subscribers' streams on the thread that read it, without another thread woken for it.
      let ended = try await withTaskExecutorPreference(socket.taskExecutor, isolation: self) {
        () async throws -> Outcome? in
        while let message = try await inbound.next(isolation: self) {
          if let outcome = try await handle(message, on: live) { return outcome }
          // A paced stream that is full holds the reading back: the connection's own buffer fills, then the
          // socket's.
          await fanOut.room()
        }
        return nil
      }
      if let ended { return ended }
      if live.endReason == nil { live.endReason = .transportClose }
    } catch {
      if live.endReason == nil, live.sid != nil { live.endReason = .transportError }
      if live.failure == nil { live.failure = "\(error)" }
    }
    return outcome(of: live)
  }

  /// How `live` ended: a disconnection if it had joined the namespace (or the app stopped it), else a failed attempt.
  func outcome(of live: LiveConnection) -> Outcome {
    if let reason = live.endReason, live.sid != nil || reason == .ioClientDisconnect { return .ended(reason) }
    if live.timedOut { return .failed("no connection within \(configuration.connectTimeout)") }
    if live.endReason == .pingTimeout { return .failed("no ping from the server within the heartbeat") }
    return .failed(live.failure ?? "the connection closed before joining the namespace")
  }

  /// Closes `live`'s WebSocket (awaited when the app asked, in the background otherwise), stops its timers and fails
  /// the acknowledgements it still awaited.
  func end(_ live: LiveConnection) async {
    live.timer?.cancel()
    live.watchdog?.cancel()
    if self.live === live { self.live = nil }
    for (id, pending) in pendingAcks where pending.generation == live.generation {
      pendingAcks[id] = nil
      pending.waiter.fulfill(
        .failure(SocketIOError(.disconnected, "The connection ended before the acknowledgement came.")))
    }
    if pendingAcks.isEmpty {
      ackTimer?.timer.cancel()
      ackTimer = nil
    }
    guard let socket = live.socket else { return }
    if live.endReason == .ioClientDisconnect {
      await socket.close(.normalClosure, reason: "")
    } else {
      Task { await socket.close(.normalClosure, reason: "") }
    }
  }

  func connectTimedOut(_ generation: Int) {
    guard let live, live.generation == generation, live.sid == nil, live.endReason == nil else { return }
    live.timedOut = true
    live.task?.cancel()
  }

  // MARK: - Heartbeat

  /// Arms the watchdog for the end of the heartbeat window; when it fires before the window closed (a ping moved it),
  /// it is armed again for the rest.
  func startWatchdog(_ live: LiveConnection) {
    guard let remaining = heartbeatRemaining(live.generation) else { return }
    let generation = live.generation
    live.watchdog = timers.after(remaining) { [weak self] in await self?.watchdogFired(generation) }
  }

  func watchdogFired(_ generation: Int) {
    guard let live, live.generation == generation, let remaining = heartbeatRemaining(generation) else { return }
    if remaining <= .zero { heartbeatMissed(generation) } else { startWatchdog(live) }
  }

  /// The time left until the heartbeat window closes, `nil` once the connection is gone.
  func heartbeatRemaining(_ generation: Int) -> Duration? {
    guard let live, live.generation == generation, live.endReason == nil, let handshake = live.handshake else {
      return nil
    }
    return live.lastPing + handshake.heartbeatWindow - now()
  }

  func heartbeatMissed(_ generation: Int) {
    guard let live, live.generation == generation, live.endReason == nil else { return }
    logger.info("No ping from the server within the heartbeat: the connection is dead.")
    live.endReason = .pingTimeout
    live.task?.cancel()
  }
}
