/// Yields, never sleeps, until `condition` holds or `maxYields` yields have passed.
///
/// For waiting on work that other tasks do in response to something the test did (a clock advance, a call).
/// - Returns: whether the condition held; tests `#expect` it, so a condition that never holds fails the test.
public func eventually(maxYields: Int = 200_000, _ condition: () -> Bool) async -> Bool {
  for _ in 0..<maxYields {
    if condition() { return true }
    await Task.yield()
  }
  return condition()
}

/// Yields `count` times, giving other tasks the chance to act; used before asserting that something did not happen.
public func settle(yields count: Int = 2_000) async {
  for _ in 0..<count { await Task.yield() }
}

/// Checks `condition` every `interval` of real time until it holds or `timeout` has passed: for a test that waits on
/// another process (a file it writes, a port it opens), which no test clock can advance.
///
/// - Returns: whether the condition held in time.
public func poll(
  every interval: Duration = .milliseconds(20), for timeout: Duration, until condition: () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now.advanced(by: timeout)
  while !condition() {
    guard ContinuousClock.now < deadline else { return false }
    try? await Task.sleep(for: interval)
  }
  return true
}
