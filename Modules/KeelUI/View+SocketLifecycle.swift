#if canImport(SwiftUI)
  import SwiftUI

  extension View {
    /// Keeps `client` open while this view's scene is active: suspends it when the scene goes to the background or
    /// becomes inactive, or the view goes away, and resumes it when the scene is active again (REQUIREMENTS A10,
    /// R6). The app calls `connect()` once; this follows the lifecycle after.
    ///
    /// ```swift
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

  /// Suspends and resumes a ``SocketIOClient`` as the scene's phase changes and the view comes and goes.
  private struct SocketLifecycle: ViewModifier {
    let client: SocketIOClient
    @Environment(\.scenePhase) private var scenePhase

    func body(content: Content) -> some View {
      content
        .onChange(of: scenePhase) { _, phase in
          let client = client
          Task {
            if phase == .active { await client.resume() } else { await client.suspend() }
          }
        }
        .onAppear {
          let client = client
          Task { await client.resume() }
        }
        .onDisappear {
          let client = client
          Task { await client.suspend() }
        }
    }
  }
#endif
