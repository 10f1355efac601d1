import Foundation

// The child process of the crash tests: `PersistenceCrashHelper <mode> <arguments…>` writes until it is killed, and
// reports each write it knows to be durable on standard output, one line each, flushed.
let arguments = Array(CommandLine.arguments.dropFirst())
do {
  switch arguments.first {
  case "disk-cache": try await DiskCacheWriter.run(Array(arguments.dropFirst()))
  case "durable-queue": try await DurableQueueWriter.run(Array(arguments.dropFirst()))
  default:
    FileHandle.standardError.write(Data("usage: PersistenceCrashHelper disk-cache|durable-queue …\n".utf8))
    exit(64)
  }
} catch {
  FileHandle.standardError.write(Data("PersistenceCrashHelper: \(error)\n".utf8))
  exit(1)
}
