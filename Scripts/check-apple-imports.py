#!/usr/bin/env python3
"""Checks, on Linux, the imports of the code that only Apple platforms compile.

CI builds on Linux, where a block under `#if canImport(SwiftUI)`, `#if os(iOS)` and the like is never compiled: a
wrong import in one (a module that was renamed, or one its target does not depend on) would first fail in an app's
Xcode build. This reads every Swift file of every target in the manifest (`swift package dump-package`), finds the
imports that only an Apple build sees, and fails unless each is an Apple SDK module or a module the file's target can
import: itself, a target it depends on (or one those depend on), or a product it depends on.

    python3 Scripts/check-apple-imports.py             # the package in the current directory
    python3 Scripts/check-apple-imports.py --self-test # the checker's own cases
"""

import json
import os
import re
import subprocess
import sys

# Modules that exist only in Apple's SDKs: a block that needs one is compiled on Apple platforms only.
APPLE_ONLY = {
    "AppKit", "BackgroundTasks", "Combine", "CoreLocation", "CryptoKit", "Darwin", "Network", "ObjectiveC", "os",
    "Security", "SwiftUI", "SystemConfiguration", "UIKit", "UserNotifications", "WatchKit",
}
APPLE_SYSTEMS = {"iOS", "macOS", "OSX", "tvOS", "watchOS", "visionOS", "macCatalyst"}
# What an Apple build may import besides the package's modules: the SDK's, and the toolchain's own.
SDK = APPLE_ONLY | {
    "Foundation", "Dispatch", "Observation", "CoreFoundation", "Swift", "_Concurrency", "Synchronization",
    "XCTest", "Testing",
}

IMPORT = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)")


def apple_only(condition):
    """Whether code under `#if condition` is compiled on Apple platforms only."""
    for module in re.findall(r"canImport\(\s*([A-Za-z_][A-Za-z0-9_]*)", condition):
        if module in APPLE_ONLY and "!" not in condition and "||" not in condition:
            return True
    systems = re.findall(r"os\(\s*([A-Za-z]+)\s*\)", condition)
    if systems and "!" not in condition and all(system in APPLE_SYSTEMS for system in systems):
        return True
    return False


def apple_imports(text):
    """The (line number, module) of each import that only an Apple build compiles."""
    stack = []  # one entry per open #if: whether the branch being read is Apple-only
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("#if "):
            stack.append(apple_only(stripped[4:]))
        elif stripped.startswith("#elseif "):
            if stack:
                stack[-1] = apple_only(stripped[8:])
        elif stripped.startswith("#else"):
            if stack:
                stack[-1] = False
        elif stripped.startswith("#endif"):
            if stack:
                stack.pop()
        elif any(stack):
            match = IMPORT.match(line)
            if match and not stripped.startswith("///"):
                found.append((number, match.group(1)))
    return found


def importable(targets, name):
    """The modules target `name` can import: itself, its targets' closure, and its products."""
    seen = set()
    pending = [name]
    while pending:
        current = pending.pop()
        if current in seen or current not in targets:
            continue
        seen.add(current)
        for dependency in targets[current]["dependencies"]:
            for kind in ("byName", "target"):
                if kind in dependency:
                    pending.append(dependency[kind][0])
            if "product" in dependency:
                seen.add(dependency["product"][0])
    return seen


def check(root):
    manifest = json.loads(subprocess.run(
        ["swift", "package", "dump-package"], cwd=root, check=True, capture_output=True, text=True).stdout)
    targets = {target["name"]: target for target in manifest["targets"]}
    failures = []
    checked = 0
    for name, target in sorted(targets.items()):
        path = target.get("path") or os.path.join("Sources", name)
        allowed = SDK | importable(targets, name)
        for directory, _, files in os.walk(os.path.join(root, path)):
            for file in sorted(files):
                if not file.endswith(".swift"):
                    continue
                source = os.path.join(directory, file)
                with open(source, encoding="utf-8") as handle:
                    imports = apple_imports(handle.read())
                checked += len(imports)
                for number, module in imports:
                    if module not in allowed:
                        failures.append(
                            f"{os.path.relpath(source, root)}:{number}: imports {module}, which is neither an Apple "
                            f"SDK module nor one target {name} can import")
    for failure in failures:
        print(failure, file=sys.stderr)
    if failures:
        print(f"check-apple-imports: {len(failures)} import(s) an Apple build would refuse", file=sys.stderr)
        return 1
    print(f"check-apple-imports: {checked} imports in Apple-only code, each an Apple SDK module or its target's")
    return 0


def self_test():
    cases = [
        ("#if canImport(Network)\n  import Dispatch\n  import Locking\n#endif\n", [(2, "Dispatch"), (3, "Locking")]),
        ("#if canImport(Darwin)\n  import Darwin\n#else\n  import Glibc\n#endif\n", [(2, "Darwin")]),
        ("#if canImport(FoundationNetworking)\n  import FoundationNetworking\n#endif\n", []),
        ("#if os(iOS) || os(tvOS)\n  import UIKit\n#elseif os(Linux)\n  import Glibc\n#endif\n", [(2, "UIKit")]),
        ("#if canImport(SwiftUI)\n  /// import Sample\n  @preconcurrency import Combine\n#endif\n", [(3, "Combine")]),
        ("#if !os(Linux)\n  import Foo\n#endif\nimport Bar\n", []),
        ("#if DEBUG\n  #if canImport(UIKit)\n    import UIKit\n  #endif\n  import Baz\n#endif\n", [(3, "UIKit")]),
    ]
    failed = 0
    for text, expected in cases:
        found = apple_imports(text)
        if found != expected:
            failed += 1
            print(f"self-test: {text!r}: found {found}, expected {expected}", file=sys.stderr)
    targets = {
        "A": {"dependencies": [{"byName": ["B", None]}, {"product": ["Logging", "swift-log", None, None]}]},
        "B": {"dependencies": [{"target": ["C", None]}]},
        "C": {"dependencies": []},
    }
    if importable(targets, "A") != {"A", "B", "C", "Logging"} or importable(targets, "C") != {"C"}:
        failed += 1
        print("self-test: the importable modules are wrong", file=sys.stderr)
    print(f"check-apple-imports self-test: {len(cases) + 1 - failed} of {len(cases) + 1} cases pass")
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(check(sys.argv[1] if len(sys.argv) > 1 else "."))
