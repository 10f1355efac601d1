#!/usr/bin/env python3
"""Judges the ThreadSanitizer reports of one `make tsan` run (Scripts/tsan.sh).

Usage: tsan-judge.py REPORTS_DIR ROOT KNOWN_REPORTS

Every instrumented process of the run (the test process and the `keel` processes the CLI tests start) writes its
reports to REPORTS_DIR/report.<pid> (TSan's `log_path`). A report is tolerated only when it is a data race, one of
its frames matches a pattern of KNOWN_REPORTS (each with its reason there), and none of the frames of its accesses or
of the memory's allocation is Keel's: no file under one of its source folders, no symbol of a target Package.swift
declares. A race in Keel code is never tolerated, whatever else its stacks hold. One kind of Keel frame is not
counted: one KNOWN_REPORTS names on a `forwarding` line (a channel handler that only passes a read on), and only below
the top of its stack, where the access was made by what it called, never by it. The stacks of the threads' creation
are not looked at: Keel creates the event loops on whose threads SwiftNIO's own races happen. An async task's stack
ends where its job last resumed, so a Keel caller further up that task is not in it: the patterns name the narrowest
frame they can.

Prints every report that is not tolerated, whole, and a count of the rest. Exit status: 0 when every report was
tolerated; 1 when one was not; 2 when, besides tolerated reports, a process crashed with the Swift runtime's known
SEGV completing generic metadata under TSan (`isCanonicalStaticallySpecializedGenericMetadata`,
swiftlang/swift#58135), which Scripts/tsan.sh runs again once. The crashed programs are printed as `crashed: NAME`.
"""

import os
import re
import sys

# Where Keel's own sources live, under the repository's root.
KEEL_SOURCE_FOLDERS = ["Modules", "Tests", "Examples", "Benchmarks", "Fuzz"]
FRAME = re.compile(r"^\s+#(\d+) (\S+) (\S+)")
METADATA_CRASH = "isCanonicalStaticallySpecializedGenericMetadata"


def keel_modules(root):
    """Every target Package.swift declares: Keel's modules, test targets, examples and tools."""
    manifest = open(os.path.join(root, "Package.swift")).read()
    return set(re.findall(r"\.(?:target|executableTarget|testTarget)\(\s*name:\s*\"([^\"]+)\"", manifest))


def keel_symbol(symbol, modules):
    """Whether a mangled Swift symbol belongs to one of Keel's modules (`$s` then the module's length and name)."""
    match = re.match(r"\$s(\d+)", symbol)
    if not match:
        return False
    length = int(match.group(1))
    name = symbol[match.end():match.end() + length]
    return name in modules


def judged_frames(lines):
    """The frames of the accesses and of the allocation: not those of a thread's creation."""
    frames, inside = [], False
    for line in lines:
        if re.match(r"^\s+(Thread T\d+|Main thread|Mutex M)", line):
            inside = False
        elif re.match(r"^\s+\S", line) and not FRAME.match(line):
            inside = True  # "Write of size 8 … by thread T2:", "Location is heap block …", "Previous read …"
        elif inside and FRAME.match(line):
            frames.append(line)
    return frames


def keel_frame(frame, root, modules, forwarding):
    """Whether `frame` is Keel's and counts: a forwarding frame below the top of its stack does not."""
    number, symbol, place = FRAME.match(frame).groups()
    if number != "0" and any(pattern in symbol for pattern in forwarding):
        return False
    return (any(place.startswith(os.path.join(root, folder) + "/") for folder in KEEL_SOURCE_FOLDERS)
            or keel_symbol(symbol, modules))


def main():
    reports_dir, root, known_file = sys.argv[1:4]
    root = os.path.realpath(root)
    modules = keel_modules(root)
    entries = [line.strip() for line in open(known_file) if line.strip() and not line.lstrip().startswith("#")]
    forwarding = [entry.split(None, 1)[1] for entry in entries if entry.startswith("forwarding ")]
    patterns = [entry for entry in entries if not entry.startswith("forwarding ")]
    tolerated, refused, crashed = 0, [], []
    for name in sorted(os.listdir(reports_dir)) if os.path.isdir(reports_dir) else []:
        text = open(os.path.join(reports_dir, name), errors="replace").read()
        if "ERROR: ThreadSanitizer" in text:
            crash = text[text.index("ERROR: ThreadSanitizer"):]
            program = "keel" if "(keel+0x" in crash else "the tests" if ".xctest+0x" in crash else "another program"
            if "SEGV" in crash and METADATA_CRASH in crash:
                crashed.append(program)
            else:
                refused.append(f"{name}: a process died under ThreadSanitizer:\n{text}")
            text = text[:text.index("ERROR: ThreadSanitizer")]
        for block in text.split("==================\n"):
            if "ThreadSanitizer" not in block or not block.startswith("WARNING:"):
                continue
            lines = block.splitlines()
            frames = judged_frames(lines[1:])
            known = next((pattern for pattern in patterns if any(pattern in frame for frame in frames)), None)
            keel = [frame.strip() for frame in frames if keel_frame(frame, root, modules, forwarding)]
            if lines[0].startswith("WARNING: ThreadSanitizer: data race") and known and frames and not keel:
                tolerated += 1
            else:
                why = (f"Keel frames: {keel[0]}" if keel else "no known pattern" if not known else "not a data race")
                refused.append(f"{name} ({why}):\n{block}")
    for report in refused:
        print(f"tsan: a report not tolerated, {report}", end="" if report.endswith("\n") else "\n")
    for program in crashed:
        print(f"crashed: {program}")
    print(f"tsan: {tolerated} known report(s) tolerated (Scripts/tsan-known-reports.txt), {len(refused)} not, "
          f"{len(crashed)} runtime crash(es)")
    sys.exit(1 if refused else 2 if crashed else 0)


if __name__ == "__main__":
    main()
