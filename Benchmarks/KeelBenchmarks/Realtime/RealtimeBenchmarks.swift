import Foundation
import NIOTransports
import Networking
import Realtime

#if canImport(Glibc)
  import Glibc
#endif

/// The Socket.IO rows: Keel's client beside python-socketio's own client (Tests/Peers/socketio_bench_client.py), on
/// the same python-socketio server on loopback: acknowledgement round trips at the median and the 99th percentile
/// (target: p99 ≤ 1 ms), events per second one way, the time to join a namespace, and the memory 1,000 connect and
/// disconnect cycles leave behind (target: flat, at most 1 MiB).
///
/// The server, in Python, is the slower party: the rows compare the two clients' share of each round trip, and both
/// pay the server's alike. One way, the server's sending is the bound: `oneWay.serverCPU` is the server's processor
/// time per event while each client reads (as long as the burst's time per event when the server is busy throughout),
/// and `oneWay.clientCPU` each client's own processor time per event over the same span (Keel's process, every
/// thread; python-socketio's client as it measures itself).
enum RealtimeBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] {
    let roundTrips = quick ? 100 : 2_000
    let burst = quick ? 1_000 : 20_000
    let connects = quick ? 5 : 50
    let cycles = Int(ProcessInfo.processInfo.environment["KEEL_BENCH_CYCLES"] ?? "") ?? (quick ? 100 : 1_000)
    let server = PythonServer()
    let bursts = LatencyRounds()
    return [
      Comparison(
        name: "realtime.ack.roundTrip.p50", unit: "µs", better: .lower, target: nil, rounds: (1, 5),
        keel: { try await keelAcks(server.url(), count: roundTrips).p50 },
        peer: { try await peer(server.url(), "ack", roundTrips)[0] },
        finish: { await server.stop() }),
      Comparison(
        name: "realtime.ack.roundTrip.p99", unit: "µs", better: .lower, target: 1_000, rounds: (1, 5),
        keel: { try await keelAcks(server.url(), count: roundTrips).p99 },
        peer: { try await peer(server.url(), "ack", roundTrips)[1] },
        finish: { await server.stop() }),
      burstRow("realtime.events.oneWay", "events/s", .higher, reading: 0, server, bursts, count: burst),
      burstRow("realtime.events.oneWay.clientCPU", "µs/event", .lower, reading: 1, server, bursts, count: burst),
      burstRow("realtime.events.oneWay.serverCPU", "µs/event", .lower, reading: 2, server, bursts, count: burst),
      Comparison(
        name: "realtime.connect", unit: "ms", better: .lower, target: nil, rounds: (1, 5),
        keel: { try await keelConnect(server.url(), count: connects) },
        peer: { try await peer(server.url(), "connect", connects)[0] },
        finish: { await server.stop() }),
      Comparison(
        name: "realtime.memory.after1000Cycles", unit: "KiB", better: .lower, target: 1_024, rounds: (1, 3),
        warmUps: 0,
        keel: { try await keelCycles(server.url(), count: cycles) },
        peer: { try await peer(server.url(), "cycles", cycles)[0] },
        finish: { await server.stop() }),
    ]
  }

  /// A one-way row: reading `index` of each burst that `bursts` keeps, so that the three rows describe the same
  /// bursts (``keelBurst(_:count:)`` and python-socketio's client give the rate and the client's time per event, the
  /// server's time per event is read around them).
  private static func burstRow(
    _ name: String, _ unit: String, _ better: Better, reading index: Int, _ server: PythonServer,
    _ bursts: LatencyRounds, count: Int
  ) -> Comparison {
    Comparison(
      name: name, unit: unit, better: better, target: nil, rounds: (1, 5),
      keel: {
        try await bursts.samples(of: .keel, for: name) {
          let (burst, serverTime) = try await server.processorTime(perEventOf: count) {
            try await keelBurst($0, count: count)
          }
          return [burst.rate, burst.processorTime, serverTime]
        }[index]
      },
      peer: {
        try await bursts.samples(of: .peer, for: name) {
          let (numbers, serverTime) = try await server.processorTime(perEventOf: count) {
            try await peer($0, "burst", count)
          }
          guard numbers.count >= 2 else { throw BenchmarkError(description: "python-socketio's burst: \(numbers)") }
          return [numbers[0], numbers[1], serverTime]
        }[index]
      },
      finish: { await server.stop() })
  }

  private static let transport = NIOWebSocketTransport()

  private static func client(_ url: URL) throws -> SocketIOClient {
    try SocketIOClient(
      configuration: SocketIOConfiguration(url: url, reconnection: .never, connectTimeout: .seconds(10)),
      transport: transport)
  }

  /// Connects `client` and returns once it is in; throws if the attempt fails (the client does not reconnect). No
  /// racing sleep: a cancelled `Task.sleep` would hold its task for its whole duration, which the memory row counts.
  private static func connect(_ client: SocketIOClient) async throws {
    let states = client.states()
    await client.connect()
    var attempted = false
    for await state in states {
      switch state {
      case .connected: return
      case .connecting: attempted = true
      case .disconnected where attempted, .refused: throw BenchmarkError(description: "keel: no connection")
      default: break
      }
    }
  }

  private static func keelAcks(_ url: URL, count: Int) async throws -> WebSocketBenchmarks.Percentiles {
    let client = try client(url)
    try await connect(client)
    let clock = ContinuousClock()
    var samples: [Duration] = []
    samples.reserveCapacity(count)
    for index in 0..<count {
      let start = clock.now
      let answer = try await client.emitWithAck("echo", [.number(Double(index))])
      samples.append(start.duration(to: clock.now))
      guard answer == [.number(Double(index))] else { throw BenchmarkError(description: "keel: a wrong ack") }
    }
    await client.disconnect()
    return WebSocketBenchmarks.Percentiles(samples)
  }

  /// One burst as the client saw it: events per second, and the processor time it took per event.
  struct Burst {
    let rate: Double
    /// In µs: the whole process's time, user and system, every thread (the server runs in a process of its own).
    let processorTime: Double
  }

  /// Events per second from the request for `count` ticks until the last one is read, and the process's processor
  /// time per event over the same span.
  private static func keelBurst(_ url: URL, count: Int) async throws -> Burst {
    let client = try client(url)
    try await connect(client)
    let ticks = client.events(named: "tick")
    let clock = ContinuousClock()
    let start = clock.now
    let cpuStart = processMicroseconds()
    try await client.emit("burst", [.number(Double(count))])
    var received = 0
    for await _ in ticks {
      received += 1
      if received == count { break }
    }
    let elapsed = start.duration(to: clock.now)
    let cpu = processMicroseconds() - cpuStart
    await client.disconnect()
    return Burst(rate: Double(count) / (nanoseconds(elapsed) / 1e9), processorTime: cpu / Double(count))
  }

  /// The median time, in ms, from `connect()` to joined, over `count` connections one after another.
  private static func keelConnect(_ url: URL, count: Int) async throws -> Double {
    let clock = ContinuousClock()
    var times: [Double] = []
    for _ in 0..<count {
      let client = try client(url)
      let start = clock.now
      try await connect(client)
      times.append(nanoseconds(start.duration(to: clock.now)) / 1e6)
      await client.disconnect()
    }
    return times.sorted()[times.count / 2]
  }

  /// The growth of the resident memory, in KiB, from the end of the first tenth of `count` connect and disconnect
  /// cycles to the end: what each cycle leaves behind.
  private static func keelCycles(_ url: URL, count: Int) async throws -> Double {
    let client = try client(url)
    var baseline = 0
    for cycle in 0..<count {
      try await connect(client)
      await client.disconnect()
      if cycle + 1 == max(1, count / 10) { baseline = residentKiB() }
    }
    return Double(residentKiB() - baseline)
  }

  /// python-socketio's client in `mode` with `count`: the numbers it prints.
  private static func peer(_ url: URL, _ mode: String, _ count: Int) async throws -> [Double] {
    let process = Process()
    process.executableURL = try PythonServer.interpreter()
    process.arguments = [
      PythonServer.peers.appendingPathComponent("socketio_bench_client.py").path, url.absoluteString, mode, "\(count)",
    ]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = await Task.detached { output.fileHandleForReading.readDataToEndOfFile() }.value
    process.waitUntilExit()
    let numbers = String(decoding: data, as: UTF8.self).split(separator: " ").compactMap {
      Double($0.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    guard process.terminationStatus == 0, !numbers.isEmpty else {
      throw BenchmarkError(
        description: "python-socketio's client (\(mode)) failed with status \(process.terminationStatus)")
    }
    return numbers
  }

  /// The python-socketio server the rows share, started by the first round and stopped after the last row.
  actor PythonServer {
    private var process: Process?
    private var port: Int?

    /// Tests/Peers, from the package root keel-bench runs in.
    static let peers = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
      .appendingPathComponent("Tests/Peers")

    /// `KEEL_PEERS_PYTHON`, or `.venv-peers/bin/python3` (`make peers`).
    static func interpreter() throws -> URL {
      let path =
        ProcessInfo.processInfo.environment["KEEL_PEERS_PYTHON"]
        ?? FileManager.default.currentDirectoryPath + "/.venv-peers/bin/python3"
      guard FileManager.default.isExecutableFile(atPath: path) else {
        throw BenchmarkError(
          description: "no python-socketio for the realtime rows: run `make peers` (or set KEEL_PEERS_PYTHON)")
      }
      return URL(fileURLWithPath: path)
    }

    /// The server's URL, starting it if it is not running.
    func url() async throws -> URL {
      if let port { return URL(string: "http://127.0.0.1:\(port)")! }
      let process = Process()
      process.executableURL = try Self.interpreter()
      process.arguments = [Self.peers.appendingPathComponent("socketio_server.py").path]
      let output = Pipe()
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      try process.run()
      let line = await Task.detached { () -> String in
        var bytes: [UInt8] = []
        while let byte = try? output.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") {
          bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
      }.value
      guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
        kill(process.processIdentifier, SIGKILL)
        throw BenchmarkError(description: "python-socketio did not start")
      }
      self.process = process
      self.port = port
      return URL(string: "http://127.0.0.1:\(port)")!
    }

    /// What `burst` returns, and the server's processor time per event while it ran against it, in µs: what one event
    /// costs the server, whose reciprocal bounds the one-way row whichever client reads. From `/proc`, in the kernel's
    /// ticks (10 ms at most, against a burst's second or so).
    func processorTime<Result: Sendable>(
      perEventOf count: Int, _ burst: (URL) async throws -> Result
    ) async throws -> (Result, Double) {
      let url = try await url()
      guard let pid = process?.processIdentifier, let before = Self.processorMicroseconds(of: pid) else {
        throw BenchmarkError(description: "python-socketio's server has no processor time to read")
      }
      let result = try await burst(url)
      guard let after = Self.processorMicroseconds(of: pid) else {
        throw BenchmarkError(description: "python-socketio's server ended during the burst")
      }
      return (result, (after - before) / Double(count))
    }

    /// The user and system time of process `pid` so far, in µs, from `/proc/<pid>/stat`; `nil` without one.
    private static func processorMicroseconds(of pid: Int32) -> Double? {
      guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let end = stat.lastIndex(of: ")")
      else { return nil }
      // After the command's closing parenthesis: state is the first field, utime the 12th and stime the 13th.
      let fields = stat[stat.index(after: end)...].split(separator: " ")
      guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
      return (user + system) * 1e6 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Stops the server.
    func stop() {
      if let process { kill(process.processIdentifier, SIGKILL) }
      process = nil
      port = nil
    }
  }
}
