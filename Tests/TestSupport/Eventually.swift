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
