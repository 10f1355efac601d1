/// What a committed write of a ``DurableQueue`` survives, and what it costs (Decision 0017).
///
/// Both levels keep the database whole: SQLite in WAL mode never leaves a half-written transaction behind, and no
/// level loses anything to the process being killed. They differ on a power loss or an operating-system crash:
///
/// | Level | `PRAGMA synchronous` | A commit returns once | A power loss may lose |
/// |---|---|---|---|
/// | ``survivesCrash`` | `NORMAL` | the write-ahead log has the transaction (in the OS's page cache) | the transactions since the last checkpoint's `fsync` |
/// | ``survivesPowerLoss`` | `FULL` | the log is `fsync`ed | nothing, as far as the storage honours `fsync` |
///
/// The price of ``survivesPowerLoss`` is one `fsync` per transaction: a quarter of a millisecond at best on the
/// development VM, several on a slow phone's flash; ``survivesCrash`` costs a few microseconds.
public enum Durability: Sendable, Hashable, CustomStringConvertible {
  /// A committed transaction survives the app being killed or crashing at any instant; a power loss may lose the
  /// last ones (never corrupt the file).
  case survivesCrash
  /// A committed transaction survives a power loss too: every commit waits for an `fsync`.
  case survivesPowerLoss

  /// SQLite's `synchronous` setting for the level: 1 (`NORMAL`) or 2 (`FULL`).
  public var synchronous: Int {
    switch self {
    case .survivesCrash: 1
    case .survivesPowerLoss: 2
    }
  }

  /// `survivesCrash` or `survivesPowerLoss`.
  public var description: String {
    switch self {
    case .survivesCrash: "survivesCrash"
    case .survivesPowerLoss: "survivesPowerLoss"
    }
  }
}
