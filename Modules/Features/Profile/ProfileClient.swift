import Domain
import Foundation
import KeelConcurrency
import Networking

/// What ``ProfileFeature`` needs of a session manager, as closures: ``live(_:)`` for a `SessionManager`, fakes in
/// tests.
public struct ProfileClient: Sendable {
  /// Changes the signed-in user's nickname; returns the user as the server now has them.
  public var updateNickname: @Sendable (_ nickname: String) async throws -> SessionUser
  /// Uploads the signed-in user's profile image, calling `progress` with the fraction sent (0 to 1); returns the user
  /// as the server now has them.
  public var updateImage:
    @Sendable (_ file: URL, _ progress: @escaping @Sendable (Double) -> Void) async throws -> SessionUser

  /// A client made of closures.
  public init(
    updateNickname: @escaping @Sendable (String) async throws -> SessionUser,
    updateImage: @escaping @Sendable (URL, @escaping @Sendable (Double) -> Void) async throws -> SessionUser
  ) {
    self.updateNickname = updateNickname
    self.updateImage = updateImage
  }

  /// The client of `sessions`. The image's progress is told at most once a percent, and at the end.
  public static func live(_ sessions: SessionManager) -> ProfileClient {
    ProfileClient(
      updateNickname: { try await sessions.updateNickname($0) },
      updateImage: { file, progress in
        let told = Locked(-1.0)
        return try await sessions.updateProfileImage(file) { step in
          guard let expected = step.expectedBytes, expected > 0 else { return }
          let fraction = min(1, Double(step.completedBytes) / Double(expected))
          let tell = told.withLock { last in
            // A retry starts again from zero: its steps are told anew.
            guard fraction >= last + 0.01 || fraction < last || (fraction == 1 && last < 1) else { return false }
            last = fraction
            return true
          }
          if tell { progress(fraction) }
        }
      })
  }
}
