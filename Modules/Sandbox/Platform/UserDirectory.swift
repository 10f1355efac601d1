/// One tenant's users, in creation order.
struct UserDirectory: Sendable, Codable {
  private var users: [String: PlatformUser] = [:]
  private var order: [String] = []
  private var lastSequence = 0

  /// The user with `id`.
  subscript(id: String) -> PlatformUser? {
    get { users[id] }
    set {
      if newValue == nil { order.removeAll { $0 == id } }
      users[id] = newValue
    }
  }

  /// Adds a user built from the next sequence number; `nil` if `id` is taken.
  mutating func insert(id: String, _ make: (_ sequence: Int) -> PlatformUser) -> PlatformUser? {
    guard users[id] == nil else { return nil }
    lastSequence += 1
    let user = make(lastSequence)
    users[id] = user
    order.append(id)
    return user
  }

  /// Users after sequence `after` that satisfy `filter`, at most `limit` of them, and whether more follow.
  func page(after: Int, limit: Int, where filter: (PlatformUser) -> Bool) -> (users: [PlatformUser], more: Bool) {
    var found: [PlatformUser] = []
    for id in order {
      guard let user = users[id], user.sequence > after, filter(user) else { continue }
      if found.count == limit { return (found, true) }
      found.append(user)
    }
    return (found, false)
  }
}
