/// The first element of `stream` that meets `condition`, or `nil` if none comes within `timeout` of real time: for
/// waiting on a status stream (a connection, a store's state, a monitor) without polling, and without waiting forever
/// when it never comes.
package func firstElement<Element: Sendable>(
  of stream: AsyncStream<Element>, within timeout: Duration, where condition: @escaping @Sendable (Element) -> Bool
) async -> Element? {
  await withTaskGroup(of: Element?.self) { group in
    group.addTask {
      for await element in stream where condition(element) { return element }
      return nil
    }
    group.addTask {
      try? await Task.sleep(for: timeout)
      return nil
    }
    let first = await group.next() ?? nil
    group.cancelAll()
    return first
  }
}
