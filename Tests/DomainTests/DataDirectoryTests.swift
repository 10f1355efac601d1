import Foundation
import Testing

@testable import Domain

/// The default data directory's name: pure logic that needs no server.
@Suite struct DataDirectoryTests {
  @Test func defaultDirectoryIsNamedKeel() {
    #expect(DataDirectory.default.lastPathComponent == "Keel")
  }
}
