/// Runs `body` `count` times at once and returns what each run threw, `nil` for a run that returned, in the order the
/// runs ended: for "N calls at once all fail the same way" tests.
public func failuresOfConcurrentCalls<Value: Sendable>(
  _ count: Int, _ body: @escaping @Sendable () async throws -> Value
) async -> [(any Error)?] {
  await withTaskGroup(of: (any Error)?.self) { group in
    for _ in 0..<count {
      group.addTask {
        do {
          _ = try await body()
          return nil
        } catch {
          return error
        }
      }
    }
    return await group.reduce(into: []) { $0.append($1) }
  }
}
