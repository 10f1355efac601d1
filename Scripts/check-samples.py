#!/usr/bin/env python3
"""Type-checks every Swift sample in Keel's documentation, as written, each one on its own.

A sample is a ```swift block in README.md, Documentation/ or a DocC catalog, or in a `///` doc comment under Modules/.
Each is compiled by itself as a main file (top-level code, its own imports) against the modules of a finished debug
build (`swift build --build-tests`), so a sample that names something it never defines, or an API that changed,
fails here. A package manifest (a sample whose first line is `// swift-tools-version: X`) is type-checked against
PackageDescription instead. A sample that imports SwiftUI or UIKit is compiled only where they exist (it is counted as
skipped here on Linux). A doc comment's sample imports the module it documents without saying so (as rustdoc's do; the import is
put on its first line, so line numbers stay); every other import is written in the sample. The README's package manifest is the one exception: `make readme-package` builds and runs that package.

Usage: Scripts/check-samples.py [--build-path .build] [--list] [FILTER]
Exit status: 0 when every sample compiles, 1 when one does not (each failure printed as FILE:LINE: the first errors).
"""

import argparse
import concurrent.futures
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^(\s*)```(\w*)\s*$")


class Sample:
    def __init__(self, path, line, code, implicit_import=None):
        self.path, self.line, self.code, self.implicit_import = path, line, code, implicit_import

    @property
    def compiled(self):
        """The code as compiled: a doc comment's sample imports its own module without saying so, as rustdoc's do."""
        if self.implicit_import is None or re.search(rf"^import {self.implicit_import}$", self.code, re.M):
            return self.code
        return f"import {self.implicit_import}; " + self.code

    @property
    def where(self):
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def markdown_samples(path):
    samples, lines = [], path.read_text().splitlines()
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if match is None:
            index += 1
            continue
        indent, kind = match.group(1), match.group(2)
        end = index + 1
        while end < len(lines) and not re.match(rf"^{re.escape(indent)}```\s*$", lines[end]):
            end += 1
        if kind == "swift":
            body = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in lines[index + 1:end]]
            samples.append(Sample(path, index + 2, "\n".join(body) + "\n"))
        index = end + 1
    return samples


def doc_comment_samples(path):
    samples, lines = [], path.read_text().splitlines()
    index = 0
    while index < len(lines):
        stripped = lines[index].strip()
        if stripped.startswith("///") and stripped[3:].strip() == "```swift":
            body, end = [], index + 1
            while end < len(lines) and lines[end].strip().startswith("///") and lines[end].strip()[3:].strip() != "```":
                text = lines[end].strip()[3:]
                body.append(text[1:] if text.startswith(" ") else text)
                end += 1
            module = path.relative_to(ROOT / "Modules").parts[0]
            samples.append(Sample(path, index + 2, "\n".join(body) + "\n", implicit_import=module))
            index = end + 1
        else:
            index += 1
    return samples


def all_samples():
    samples = []
    documents = [ROOT / "README.md", *sorted((ROOT / "Documentation").rglob("*.md")),
                 *sorted((ROOT / "Modules").glob("*/*.docc/**/*.md"))]
    for document in documents:
        samples += markdown_samples(document)
    for source in sorted((ROOT / "Modules").rglob("*.swift")):
        samples += doc_comment_samples(source)
    return samples


def compiler_flags(build_path):
    """The module search paths of the build, and every C module map its targets were compiled with."""
    manifest = build_path / "debug.yaml"
    if not manifest.exists():
        sys.exit(f"check-samples: no {manifest}; run `swift build --build-tests` first")
    flags, seen = [], set()
    for line in manifest.read_text().splitlines():
        line = line.strip()
        if not line.startswith("args: [\"") or "\"-module-name\"" not in line:
            continue
        args = json.loads(line[len("args: "):])
        index = 0
        while index < len(args) - 1:
            if args[index] == "-Xcc" and args[index + 1] == "-I" and index + 3 < len(args):
                flag = ("-Xcc", "-I", "-Xcc", args[index + 3])
                index += 4
            elif args[index] == "-Xcc":
                flag = ("-Xcc", args[index + 1])
                index += 2
            else:
                index += 1
                continue
            if flag not in seen:
                seen.add(flag)
                flags += flag
    modules = (build_path / "debug" / "Modules").resolve()
    return ["-I", str(modules), "-I", str(modules.parent)] + flags


MANIFEST = re.compile(r"^// swift-tools-version: ?(\d+\.\d+)")
APPLE_ONLY = re.compile(r"^import (SwiftUI|UIKit|AppKit)$", re.M)


def swiftc():
    return os.environ.get("SWIFTC", "swiftc")


def manifest_flags():
    """PackageDescription, from the toolchain the compiler belongs to."""
    compiler = pathlib.Path(subprocess.run(["which", swiftc()], capture_output=True, text=True).stdout.strip())
    return ["-I", str(compiler.resolve().parent.parent / "lib" / "swift" / "pm" / "ManifestAPI")]


def skipped(sample):
    """Why a sample cannot be compiled on this machine, or None."""
    match = APPLE_ONLY.search(sample.code)
    if match and sys.platform != "darwin":
        return f"imports {match.group(1)}"
    return None


def check(sample, flags, directory):
    name = re.sub(r"[^A-Za-z0-9]+", "_", sample.where) + ".swift"
    file = pathlib.Path(directory) / name
    file.write_text(sample.compiled)
    manifest = MANIFEST.match(sample.code)
    if manifest:
        flags = manifest_flags() + ["-package-description-version", manifest.group(1)]
    result = subprocess.run(
        [swiftc(), "-typecheck", "-swift-version", "6", "-warnings-as-errors", *flags, str(file)],
        capture_output=True, text=True)
    if result.returncode == 0:
        return None
    errors = []
    for line in result.stderr.splitlines():
        match = re.match(rf"^{re.escape(str(file))}:(\d+):\d+: (error|warning): (.*)$", line)
        if match:
            errors.append(f"  line {sample.line + int(match.group(1)) - 1}: {match.group(3)}")
    return f"{sample.where}: the sample does not compile\n" + "\n".join((errors or [result.stderr.strip()[:2000]])[:4])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-path", default=".build")
    parser.add_argument("--list", action="store_true", help="list the samples and stop")
    parser.add_argument("filter", nargs="?", default="", help="only the samples whose FILE:LINE contains this")
    options = parser.parse_args()
    samples = [sample for sample in all_samples() if options.filter in sample.where]
    if options.list:
        for sample in samples:
            print(sample.where)
        return 0
    flags = compiler_flags((ROOT / options.build_path).resolve())
    skips = [(sample, skipped(sample)) for sample in samples if skipped(sample)]
    checked = [sample for sample in samples if not skipped(sample)]
    with tempfile.TemporaryDirectory(prefix="keel-samples-") as directory:
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            failures = [failure for failure in pool.map(lambda s: check(s, flags, directory), checked) if failure]
    for failure in failures:
        print(failure)
    for sample, reason in skips:
        print(f"{sample.where}: skipped here: it {reason}")
    print(f"check-samples: {len(checked) - len(failures)} of {len(checked)} samples compile"
          + (f"; {len(skips)} skipped on this platform" if skips else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
