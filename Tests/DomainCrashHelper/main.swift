// A child process for the event tracker's crash test: it tracks events while uploading to a Sandbox until the test
// kills it with SIGKILL. Written by the crash-test work of issue 7.
import Domain

print("ready")
