/// Enqueues into a DurableQueue until killed (the DurableQueue crash test).
enum DurableQueueWriter {
  static func run(_ arguments: [String]) async throws {}
}
