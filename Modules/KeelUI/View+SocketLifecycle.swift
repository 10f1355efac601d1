#if canImport(SwiftUI)
  import Realtime
  import SwiftUI

  extension View {
    /// Keeps `client` open while this view's scene is active: suspends it when the scene goes to the background or
    /// becomes inactive, or the view goes away, and resumes it when the scene is active again (REQUIREMENTS A10,
    /// R6). The app calls `connect()` once; this follows the lifecycle after, one change at a time in the order the
    /// phases changed (``ScenePhaseRelay``).
    ///
    /// ```swift
    /// import Realtime
    /// import SwiftUI
    ///
    /// struct ChatScreen: View {
    ///   let client: SocketIOClient
    ///   var body: some View {
    ///     Text("Chat").socketLifecycle(client)
    ///   }
    /// }
    /// ```
    public func socketLifecycle(_ client: SocketIOClient) -> some View {
      modifier(SocketLifecycle(client: client))
    }
  }

  /// Suspends and resumes a `SocketIOClient` as the scene's phase changes and the view comes and goes, in order.
  private struct SocketLifecycle: ViewModifier {
    /// Kept for the view's life (the modifier itself is made anew at every render), so one line orders every change.
    @State private var relay: ScenePhaseRelay
    @Environment(\.scenePhase) private var scenePhase

    init(client: SocketIOClient) {
      _relay = State(initialValue: ScenePhaseRelay(client))
    }

    func body(content: Content) -> some View {
      content
        .onChange(of: scenePhase) { _, phase in relay.sceneChanged(active: phase == .active) }
        .onAppear { relay.sceneChanged(active: scenePhase == .active) }
        .onDisappear { relay.sceneChanged(active: false) }
    }
  }
#endif
