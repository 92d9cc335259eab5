#!/usr/bin/env python3
"""Keeps only the public API in swift-api-digester's dumps (`-dump-sdk` JSON): drops every declaration
marked `isInternal` (the package's `package` declarations, which no user sees, so changing them
breaks no one) and the tool's arguments (the paths of the machine that made the dump).

    python3 .ci/api-public.py DIR        # rewrites every DIR/*.json in place
"""
import json
import pathlib
import sys


def public(node):
    node["children"] = [public(child) for child in node.get("children", []) if not child.get("isInternal")]
    if not node["children"]:
        del node["children"]
    return node


for path in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    dump = json.loads(path.read_text())
    root = dump["ABIRoot"]
    root["tool_arguments"] = []
    public(root)
    root.setdefault("children", [])
    path.write_text(json.dumps(dump, indent=1, sort_keys=True) + "\n")
    print(f"{path.name}: {len(root['children'])} public top-level declarations")
