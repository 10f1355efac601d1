/// The first element of `stream` that meets `condition`, or `nil` if none comes within `timeout`.
///
/// A status stream tells when something is done without polling; the timeout keeps the example from waiting forever
/// when it never is.
public func first<Element: Sendable>(
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
