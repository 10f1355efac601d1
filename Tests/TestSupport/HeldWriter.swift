import Foundation
import GRDB

/// The writer of a database, held by a thread of its own until ``release()``: a write begun meanwhile waits, reads go
/// on (a store's writes held up as by a slow disk).
public final class HeldWriter: Sendable {
  private let released = DispatchSemaphore(value: 0)

  /// Returns once the writer of `pool` is held.
  public init(_ pool: DatabasePool) {
    let held = DispatchSemaphore(value: 0)
    Thread.detachNewThread { [released] in
      pool.writeWithoutTransaction { _ in
        held.signal()
        released.wait()
      }
    }
    held.wait()
  }

  /// Lets the writer go.
  public func release() { released.signal() }
}
