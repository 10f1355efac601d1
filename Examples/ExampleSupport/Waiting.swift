import KeelConcurrency

/// The first element of `stream` that meets `condition`, or `nil` if none comes within `timeout`.
///
/// A status stream tells when something is done without polling; the timeout keeps the example from waiting forever
/// when it never is.
public func first<Element: Sendable>(
  of stream: AsyncStream<Element>, within timeout: Duration, where condition: @escaping @Sendable (Element) -> Bool
) async -> Element? {
  await firstElement(of: stream, within: timeout, where: condition)
}
