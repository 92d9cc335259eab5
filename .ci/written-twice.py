#!/usr/bin/env python3
"""Functions both stores define under the same name, sorted by what they are (issue 53's measure).

    python3 .ci/written-twice.py [checkout]

Row operations (declared in Sources/DurableQueueCore/Sequences/*Rows.swift) and their helpers, the
named fast paths, the reads of JobStoreReader and each store's plumbing (its connection, its row
decoding) are expected in both. Whatever else both define is a sequence still written once per store: the count to bring
to 0 (see the Architecture article, "Sequences written once").
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
FUNC = re.compile(r"\bfunc ([A-Za-z_][A-Za-z0-9_]*)")
# One dialect statement (or one short transaction) per store, named in the Architecture article,
# with the helpers of their statements.
FAST_PATHS = {"enqueue", "claim", "finish", "renewLeases", "recordSteps", "saveProgress", "runSequence",
              "insert", "debounce", "promoteDueJobs", "recordStarts", "recordKeyStarts", "keyOverrides", "fairTag"}
# Each store's helpers of its row operations (a history row, a row read the same way by several),
# and the two-line calls of a core sequence from the store's own fast paths.
# The side rows' statements (SQLite 29, PostgreSQL 24: job_attempt_state, job_wait_targets) are such
# helpers: one statement each in its dialect, called by the row operations that change those rows.
ROW_HELPERS = {"appendEvent", "appendGroupEvent", "stateRow", "groupRow", "result", "entry", "jobEnded", "requestCancel",
               "attachDependencies", "ensureAttemptState", "takeBackProgress", "countProgress", "recordLostAttempts",
               "endWaitTarget", "forgetEndedWaitTargets"}
# Each store's own machinery: its connection, transactions, errors and row decoding.
PLUMBING = {"bind", "execute", "query", "read", "write", "run", "mapped", "migrate", "int", "string", "optionalInt",
            "optionalString", "optionalDouble", "int64", "optionalInt64", "isNull", "value", "validate", "store", "whereClause", "child", "stampTimes",
            "observeChanges", "setPaused", "changeToken", "transaction", "runApplicationStatement"}


def names(folder):
    found = set()
    for path in folder.rglob("*.swift"):
        found.update(FUNC.findall(path.read_text()))
    return found


def declared(pattern):
    found = set()
    for path in (ROOT / "Sources" / "DurableQueueCore").glob(pattern):
        found.update(FUNC.findall(path.read_text()))
    return found


both = names(ROOT / "Sources" / "DurableQueueSQLite") & names(ROOT / "Sources" / "DurableQueuePostgres")
rows = declared("Sequences/*Rows.swift")
# JobStoreReader's requirements, and the reads among JobStore's.
reads = set(FUNC.findall((ROOT / "Sources" / "DurableQueueCore" / "Store" / "JobStoreReader.swift").read_text()))
reads |= {"cancelRequested", "handOffs", "dueSchedules", "queues"}
groups = [("row operations", both & rows), ("fast paths", both & FAST_PATHS - rows), ("reads", both & reads - rows - FAST_PATHS),
          ("row helpers and calls of the core", both & ROW_HELPERS - rows - FAST_PATHS - reads),
          ("plumbing", both & PLUMBING - rows - FAST_PATHS - reads - ROW_HELPERS)]
expected = set().union(*(members for _, members in groups))
for title, members in groups:
    print(f"{title} ({len(members)}): {' '.join(sorted(members))}")
twice = sorted(both - expected)
print(f"written per store ({len(twice)}): {' '.join(twice)}")
print(f"same-named functions: {len(both)}; written per store: {len(twice)}")
