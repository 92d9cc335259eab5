#!/usr/bin/env python3
"""Where a job's instructions go: the workloads of `instructions.py` under callgrind, each function's own
(exclusive) instructions summed by what the function is, per job.

    python3 Benchmarks/breakdown.py [--n 2000] [--workloads enqueue,drain,one-at-a-time,batch] [--save]

Runs the adapter `instructions.py` built (`.build/instructions/dq-bench-adapter`; run that first) once
per workload, on the dump of the timed loop (the `totals:` that `instructions.py` reports), and sorts
every function's own instructions, read from the dump, into one of the groups below by its object
file and its (mangled) name. Exclusive costs add up to the total, so the groups are a partition: SQLite's
own code, the C library's allocator and copies (SQLite's and Swift's alike), Swift's reference
counting and allocation, dynamic casts and metadata, Swift concurrency (tasks, executors, locks),
JSON, the rest of the standard library and Foundation, and the project's own modules. `--save`
writes `results/DATE-breakdown-COMMIT.jsonl`.
"""
import argparse
import collections
import datetime
import json
import re
import tempfile

import instructions

ADAPTER = instructions.WORK / "dq-bench-adapter"
# (group, test on (object file, function)), first match wins.
GROUPS = [
    ("SQLite", lambda ob, fn: "libsqlite3" in ob),
    ("JSON (the project's coders)", lambda ob, fn: "JSON" in fn and "DurableQueue" in fn),
    ("Swift reference counting", lambda ob, fn: re.search(r"swift_(retain|release|bridgeObject|unknownObject|nonatomic)|RefCounts", fn)),
    ("Swift allocation", lambda ob, fn: re.search(r"swift_(allocObject|deallocObject|slowAlloc|slowDealloc|allocBox|deallocClassInstance|deallocUninitialized)", fn)),
    ("dynamic casts and metadata", lambda ob, fn: re.search(r"swift_(conformsToProtocol|dynamicCast|getGenericMetadata|getWitnessTable|checkMetadataState|getAssociated|getTypeByMangledName)|Metadata|ConformanceSection|ProtocolConformance", fn)),
    ("Swift concurrency (tasks, executors)", lambda ob, fn: "libswift_Concurrency" in ob or "libdispatch" in ob or re.search(r"swift_task|swift_job|swift_continuation|swift_asyncLet|Executor", fn)),
    ("C library: allocator", lambda ob, fn: "libc.so" in ob and re.search(r"malloc|free|calloc|realloc|_int_|tcache|unlink_chunk|consolidate", fn)),
    ("C library: copies and compares", lambda ob, fn: "libc.so" in ob and re.search(r"mem(set|cpy|move|cmp)|str(len|cmp|ncmp|chr)", fn)),
    ("threads, locks and system calls", lambda ob, fn: re.search(r"libc.so|ld-linux|libpthread|vdso", ob)),
    ("DurableQueue: the SQLite store", lambda ob, fn: "18DurableQueueSQLite" in fn),
    ("DurableQueue: API, engine and rules", lambda ob, fn: "16DurableQueueCore" in fn),
    ("Swift standard library (strings, collections, hashing)", lambda ob, fn: "libswiftCore" in ob),
    ("Foundation", lambda ob, fn: "Foundation" in ob),
    ("the benchmark adapter and the rest", lambda ob, fn: True),
]


def self_costs(dump):
    """The dump's `totals:` and each (object file, function)'s own instructions, read from the file
    itself: a cost line counts for the current `fn=` unless it follows a `calls=` line (then it is the
    call's inclusive cost). Names are compressed: `(id) name` the first time, `(id)` after."""
    names = {"ob": {}, "fn": {}}
    costs = collections.Counter()
    totals, ob, fn, after_call = 0, "", "", False
    for line in dump.read_text(errors="replace").splitlines():
        if line.startswith("totals:"):
            totals = int(line.split()[1])
        elif line.startswith(("ob=", "fn=")):
            key, _, value = line.partition("=")
            ident, _, name = value.partition(" ")
            if name:
                names[key][ident] = name
            if key == "ob":
                ob = names["ob"].get(ident, ident)
            else:
                fn = names["fn"].get(ident, ident)
        elif line.startswith(("cob=", "cfn=")):
            key, _, value = line[1:].partition("=")
            ident, _, name = value.partition(" ")
            if name:
                names[key][ident] = name
        elif line.startswith("calls="):
            after_call = True
        elif (line[:1].isdigit() or line[:1] in "+-*") and len(fields := line.split()) == 2:
            if after_call:
                after_call = False
            else:
                costs[(ob, fn)] += int(fields[1])
    return totals, costs


def profile(workload, extra, n):
    """The timed loop of one run: (totals, {group: own instructions})."""
    with tempfile.TemporaryDirectory(prefix="dq-breakdown-") as folder:
        dump, _ = instructions.callgrind(ADAPTER, workload, extra, n, folder)
        totals, costs = self_costs(dump)
    groups = collections.Counter()
    for (ob, function), count in costs.items():
        groups[next(name for name, test in GROUPS if test(ob, function))] += count
    return totals, groups


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--workloads", default="enqueue,drain,one-at-a-time,batch")
    parser.add_argument("--save", action="store_true")
    arguments = parser.parse_args()
    if not ADAPTER.exists():
        raise SystemExit(f"{ADAPTER} is missing: run python3 Benchmarks/instructions.py first")
    commit = instructions.commit()
    lines, table = [], {}
    for name in arguments.workloads.split(","):
        # The adapter's case of the workload: DurableQueue's, not the C baseline's.
        [(_, workload, extra)] = [case for case in instructions.CASES[name] if case[0].startswith("durablequeue")]
        totals, groups = profile(workload, extra, arguments.n)
        per_job = {group: round(groups[group] / arguments.n) for group, _ in GROUPS}
        table[name] = (totals / arguments.n, per_job)
        lines.append({
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "tool": "valgrind --tool=callgrind, exclusive costs by group (Benchmarks/breakdown.py)",
            "key": "durablequeue", "workload": name, "n": arguments.n, "version": f"DurableQueue {commit}",
            "instructions_per_job": round(totals / arguments.n, 1), "groups_per_job": per_job,
        })
    names = list(table)
    print("| group | " + " | ".join(names) + " |")
    print("| --- | " + " | ".join("---:" for _ in names) + " |")
    for group, _ in GROUPS:
        print(f"| {group} | " + " | ".join(f"{table[name][1][group]:,}" for name in names) + " |")
    print("| **total (totals: over N)** | " + " | ".join(f"**{round(table[name][0]):,}**" for name in names) + " |")
    if arguments.save:
        day = datetime.date.today().isoformat()
        path = instructions.RESULTS / f"{day}-breakdown-{commit}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        print(f"results: {path.relative_to(instructions.ROOT)}")


if __name__ == "__main__":
    main()
