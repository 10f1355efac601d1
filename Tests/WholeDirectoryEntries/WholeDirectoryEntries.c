// Each directory entry readdir(3) returns, handed on from a whole `struct dirent`, in the test binary alone.
//
// glibc returns an entry at its own length (`d_reclen`, 24 bytes for a name such as "1234"), in its buffer. Foundation's
// `Process.run()` in Swift 6.3 copies the whole 256-byte `d_name` of each entry of /proc/self/fd
// (swift-corelibs-foundation pull request 5472, fixed after 6.3). With more descriptors open than the buffer holds,
// which the whole test suite on two cores reaches (two thousand), the last entry ends at the buffer's end, the copy
// reads past it into an unmapped page, and the test process crashes in `Process.run()`. A definition in the
// executable comes before libc's for every shared library that calls readdir, Foundation's included.
#if defined(__linux__) && !defined(__ANDROID__)
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <string.h>

typedef struct dirent *(*ReadDirectory)(DIR *);

// Valid until the next readdir on this thread, where libc's is valid until the next on the same stream: every caller
// in the tests copies the name before it reads on.
static __thread struct dirent whole;

struct dirent *readdir(DIR *directory) {
  static ReadDirectory libc = 0;
  ReadDirectory found = __atomic_load_n(&libc, __ATOMIC_ACQUIRE);
  if (found == 0) {
    found = (ReadDirectory)dlsym(RTLD_NEXT, "readdir");
    __atomic_store_n(&libc, found, __ATOMIC_RELEASE);
  }
  struct dirent *entry = found(directory);
  if (entry == 0) return 0;
  size_t length = entry->d_reclen < sizeof whole ? entry->d_reclen : sizeof whole;
  memset(&whole, 0, sizeof whole);
  memcpy(&whole, entry, length);
  return &whole;
}
#endif
