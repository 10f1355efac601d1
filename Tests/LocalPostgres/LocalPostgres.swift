import Foundation
import KeelConcurrency

/// A real PostgreSQL server for the tests and keel-bench rows that need one (REQUIREMENTS L2): the one `.ci/run`
/// started (`KEEL_TEST_POSTGRES`), or else a cluster this process starts in a temporary directory on 127.0.0.1 and
/// stops when it exits. A machine without PostgreSQL fails those tests with a sentence saying how to get it, never a
/// pass.
///
/// PostgreSQL refuses to run as root, so when the tests run as root the cluster is the `postgres` user's
/// (`runuser -u postgres`).
public enum LocalPostgres {
  /// Why no server could be had, in a sentence.
  public struct Unavailable: Error, CustomStringConvertible {
    /// What is missing, and what to do.
    public let description: String
  }

  /// The server's URL, such as `postgres://postgres@127.0.0.1:54012/postgres?sslmode=disable`.
  ///
  /// - Throws: ``Unavailable`` when `KEEL_TEST_POSTGRES` is unset and no cluster could be started.
  public static func url() async throws -> String {
    let task = starting.withLock { starting in
      if let starting { return starting }
      // On a thread of its own: `initdb` and `pg_ctl` are waited for with blocking calls, which must not hold a
      // task's thread (with two of them on two cores, the waits starved the exit notification they wait for).
      let started = Task {
        try await withCheckedThrowingContinuation { continuation in
          Thread.detachNewThread { continuation.resume(with: Result { try start() }) }
        }
      }
      starting = started
      return started
    }
    return try await task.value
  }

  private static let starting = Locked<Task<String, any Error>?>(nil)

  private static func start() throws -> String {
    if let url = ProcessInfo.processInfo.environment["KEEL_TEST_POSTGRES"], !url.isEmpty { return url }
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("keel-postgres-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    let cluster = try Cluster.start(
      ports: (0..<5).map { _ in Int.random(in: 20_000...60_000) }, directory: directory)
    stopAtExit(cluster)
    return cluster.url
  }

  /// A cluster this process started: its server's URL, and what stopping it needs.
  public struct Cluster: Sendable {
    /// The server's URL.
    public let url: String
    /// The temporary directory that holds the cluster's data, log and socket.
    public let directory: String
    fileprivate let pgCtl: String
    fileprivate let asRoot: Bool

    /// Starts a cluster in `directory`, which it creates, on the first of `ports` its server can listen on: a port
    /// found free can be taken by another process before the server binds it, and then the next one is tried. When
    /// none works, or `initdb` fails, nothing is left behind: the directory is removed before the error is thrown.
    ///
    /// - Throws: ``Unavailable``, saying what failed on the last port tried.
    public static func start(ports: [Int], directory: URL) throws -> Cluster {
      guard let bin = binaries() else {
        throw Unavailable(
          description:
            "PostgreSQL is needed for this test and is not installed: `apt-get install postgresql` (what .ci/run "
            + "does), or set KEEL_TEST_POSTGRES=postgres://USER@HOST:PORT/DATABASE to a server the tests may write to.")
      }
      do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let asRoot = getuid() == 0
        if asRoot { try run("/bin/chown", ["postgres", directory.path]) }
        let data = directory.appendingPathComponent("data").path
        try run(bin + "/initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"], asPostgres: asRoot)
        var failure: (any Error)?
        for port in ports {
          let options = "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off"
          do {
            try run(
              bin + "/pg_ctl",
              ["-D", data, "-l", directory.appendingPathComponent("log").path, "-o", options, "-w", "start"],
              asPostgres: asRoot)
            return Cluster(
              url: "postgres://postgres@127.0.0.1:\(port)/postgres?sslmode=disable", directory: directory.path,
              pgCtl: bin + "/pg_ctl", asRoot: asRoot)
          } catch {
            failure = error
          }
        }
        throw failure ?? Unavailable(description: "No port was given to start PostgreSQL on.")
      } catch {
        try? FileManager.default.removeItem(at: directory)
        throw error
      }
    }

    /// Stops the server at once and removes its directory.
    public func stop() {
      try? LocalPostgres.run(pgCtl, ["-D", directory + "/data", "-m", "immediate", "stop"], asPostgres: asRoot)
      try? FileManager.default.removeItem(atPath: directory)
    }
  }

  /// The directory with `initdb` and `pg_ctl`: Debian keeps them out of PATH, in /usr/lib/postgresql/VERSION/bin.
  private static func binaries() -> String? {
    let versions =
      ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
      .sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
    let candidates = versions.map { "/usr/lib/postgresql/\($0)/bin" } + ["/usr/local/bin", "/usr/bin"]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0 + "/pg_ctl") }
  }

  /// Runs `executable` and waits for it, its output kept in a file for the error message.
  ///
  /// posix_spawn and waitpid rather than Foundation's Process: Process learns of an exit when a socket it hands the
  /// child closes, and `pg_ctl start` leaves that socket open in the server it starts, so Process waits for the
  /// server to stop. For the same reason the child gets no descriptor but its standard ones.
  private static func run(_ executable: String, _ arguments: [String], asPostgres: Bool = false) throws {
    let argv =
      asPostgres ? ["/sbin/runuser", "-u", "postgres", "--", executable] + arguments : [executable] + arguments
    let log = FileManager.default.temporaryDirectory.appendingPathComponent("keel-postgres-\(UUID().uuidString).log")
    defer { try? FileManager.default.removeItem(at: log) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    // Nothing else of this process's: `pg_ctl start` leaves a server running, and a descriptor of the tests' it
    // inherited would stay open in it: a stopped Sandbox's listening socket kept connections waiting in its backlog
    // instead of refused, and the write end of another test's child's pipe kept that test reading forever. Closed in
    // the child at the spawn itself: a list of open descriptors made before it misses the pipes other tests' threads
    // open meanwhile. (glibc 2.34 has it; Swift's Glibc module does not declare it.)
    guard let closeFrom = Self.closeFrom, closeFrom(&actions, 3) == 0 else {
      throw Unavailable(description: "This glibc has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 has).")
    }
    var cArguments = argv.map { strdup($0) } + [nil]
    defer { for argument in cArguments { free(argument) } }
    var pid = pid_t()
    let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
    guard spawned == 0 else {
      throw Unavailable(description: "\(argv[0]) could not be started (errno \(spawned)).")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    guard status == 0 else {
      let printed = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
      throw Unavailable(
        description: "\(executable) \(arguments.joined(separator: " ")) failed (status \(status)): \(printed)")
    }
  }

  /// glibc's `posix_spawn_file_actions_addclosefrom_np`: a spawn action that closes every descriptor from a number on.
  private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? =
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np").map {
      unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }

  // What the exit handler stops and removes; it is a C function and captures nothing.
  private nonisolated(unsafe) static var cleanup: Cluster?

  private static func stopAtExit(_ cluster: Cluster) {
    cleanup = cluster
    atexit { LocalPostgres.cleanup?.stop() }
  }
}
