import Hummingbird
import NIOCore

/// The request context: Hummingbird's core storage plus the connection, so that a fault can drop it.
struct SandboxContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  let channel: any Channel

  init(source: ApplicationRequestContextSource) {
    coreContext = CoreRequestContextStorage(source: source)
    channel = source.channel
  }
}
