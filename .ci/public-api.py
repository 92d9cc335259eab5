#!/usr/bin/env python3
"""Counts the public API: public declarations in Sources/, and the public members of JobQueue and
of its views (declared at the top level of a type or extension of that name).

    python3 .ci/public-api.py [checkout]
"""
import collections
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
DECLARATION = re.compile(
    r"^\s*(@\w+ )*public (final |static |convenience |nonisolated )*(func|var|let|init|struct|class|enum|protocol|actor|typealias|case|subscript)\b")
MEMBER = re.compile(r"^    (@\w+ )*public (static |convenience |nonisolated )*(func|var|let|init)\b")
TYPE = re.compile(r"^(?:public |package )?(?:final )?(?:extension|class|struct|enum|actor|protocol) ([A-Za-z.]+)")

declarations = 0
members: collections.Counter[str] = collections.Counter()
for path in sorted((ROOT / "Sources").rglob("*.swift")):
    target, depth = None, 0
    for line in path.read_text().splitlines():
        code = line.split("//")[0]
        if DECLARATION.match(code):
            declarations += 1
        if depth == 0 and (match := TYPE.match(code)):
            target = match.group(1)
        if depth == 1 and target and MEMBER.match(code):
            members[target] += 1
        depth += code.count("{") - code.count("}")

print(f"public declarations in Sources/: {declarations}")
for name in ["JobQueue", "JobQueue.Jobs", "JobQueue.Queues", "JobQueue.Schedules", "JobQueue.HandOffs"]:
    print(f"public members of {name}: {members[name]}")
