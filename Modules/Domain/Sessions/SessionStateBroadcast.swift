import KeelConcurrency

/// The session's states, each sent to every observer: every transition matters to one.
typealias SessionStateBroadcast = Broadcast<SessionState>
