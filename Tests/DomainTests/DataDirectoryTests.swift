import Foundation
import Testing

@testable import Domain

@Suite struct DataDirectoryTests {
  @Test func defaultDirectoryIsNamedKeel() {
    #expect(DataDirectory.default.lastPathComponent == "Keel")
  }
}
