#!/usr/bin/env python3
"""Instructions per job of this checkout beside the committed numbers: the guard run before a stop
that touches the engine or a store.

    python3 Benchmarks/instructions.py                 # N = 2,000, 3 runs of each, prints the table
    python3 Benchmarks/instructions.py --save          # and writes results/DATE-instructions-COMMIT.jsonl
    python3 Benchmarks/instructions.py --runs 1 --workloads enqueue,batch
    python3 Benchmarks/instructions.py --features      # a plain, a keyed, a dependent, a stepped and a grouped job

Runs the peers' C baseline and DurableQueue through the peers' adapter (built in release against
this checkout, its public API only) under `valgrind --tool=callgrind`, on the four workloads of
issue 51: an awaited enqueue, a drain with the defaults, a drain one job at a time
(`--concurrency 1`) and batches of 1,000. Each program zeroes the counts where its clock starts
and dumps them where it stops; a job's count is the dump's instructions over N.

Which number of the dump: its `totals:` line, the sum of every cost the dump attributes, over all
threads. `callgrind.sh` reads its `summary:` line, which for a program with more than one thread
also counts what the other threads ran *before* the timed loop: callgrind's zero request resets
every cost centre but the "since the last dump" mark of the calling thread only. The engine's
pool threads open the file and run the untimed prefill, so `summary:` adds, depending on which
thread happens to zero the counts, about 7,500 instructions a job (N = 2,000) or about 120,000
(the "spinning thread" once suspected). Both are recorded; the table compares `totals:`. For the
single-threaded C baseline the two agree.

`--floor` adds the floor of DurableQueue's own SQL: `sql-floor/floor.c` (the SQLite store's
statements from C, on a file made by `Migrations/`, no Swift) under callgrind on the same
workloads: `sql-floor` for the awaited enqueue, the batches and the drain at 10 jobs per commit
(about the engine's group commit in this benchmark), `sql-floor-c1` for the drain one job at a time. What
DurableQueue runs above it is the engine's own cost.

`--features` instead measures what a job using a feature costs beside a plain one: the whole
`durableq-bench` process (release, without DWARF) under callgrind for its drains of plain jobs, of
keyed jobs (a fair queue, one running job and a 1 ms throttle per key), of dependent jobs (half of
them each waiting for one of the other half), of jobs of three durable steps and of the children of
one concurrent group running 16 at a time, at N and 2N jobs;
a job's count is the difference over N (the marginal cost, prefill by batches of 1,000 included).

Needs valgrind, gcc, objcopy and swift (the adapter's first build takes about four minutes).
"""
import argparse
import datetime
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

import tables  # Benchmarks/tables.py: which results line is the newest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
PEERS = (ROOT / ".." / "shared" / "bench" / "peers").resolve()
WORK = ROOT / ".build" / "instructions"
# (system, workload, extra adapter arguments)
CASES = {
    "enqueue": [("c-baseline", "enqueue", []), ("durablequeue", "enqueue", [])],
    "drain": [("c-baseline", "drain", []), ("durablequeue", "drain", [])],
    "one-at-a-time": [("durablequeue-c1", "drain", ["--concurrency", "1"])],
    "batch": [("c-baseline", "batch", []), ("durablequeue", "batch", [])],
}


def run(command, **options):
    return subprocess.run(command, check=True, **options)


def commit():
    described = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"], capture_output=True, text=True)
    return described.stdout.strip() or "unknown"


def build(peers):
    """The baseline with callgrind's markers at its clock reads, and the adapter without DWARF
    (valgrind 3.19 cannot read Swift 6's DWARF 5), both in `WORK`."""
    WORK.mkdir(parents=True, exist_ok=True)
    source = (peers / "baseline.c").read_text()
    source = source.replace("#include <sys/resource.h>", "#include <sys/resource.h>\n#include <valgrind/callgrind.h>")
    source = source.replace("t0 = mono();", "CALLGRIND_ZERO_STATS; t0 = mono();")
    source = source.replace("t1 = mono();", 't1 = mono(); CALLGRIND_DUMP_STATS_AT("timed loop");')
    (WORK / "baseline_cg.c").write_text(source)
    run(["gcc", "-O2", "-Wall", "-o", str(WORK / "baseline_cg"), str(WORK / "baseline_cg.c"), "-lsqlite3"])
    adapter = WORK / "swift-adapter"
    if adapter.exists():  # the sources again, the build folder kept
        for item in (peers / "swift-adapter").iterdir():
            if item.name != ".build":
                target = adapter / item.name
                shutil.rmtree(target, ignore_errors=True) if target.is_dir() else target.unlink(missing_ok=True)
                (shutil.copytree if item.is_dir() else shutil.copy)(item, target)
    else:
        shutil.copytree(peers / "swift-adapter", adapter, ignore=shutil.ignore_patterns(".build"))
    for path in adapter.rglob("*"):
        path.chmod(path.stat().st_mode | 0o200)
    adapter.chmod(adapter.stat().st_mode | 0o200)
    # The adapter's own module is always compiled again: SwiftPM linked a stale one against a
    # checkout whose StorageOptions had grown (a release build, 2026-12-05), and it crashed.
    shutil.rmtree(adapter / ".build" / "release" / "dq_bench_adapter.build", ignore_errors=True)
    print("# building the adapter against this checkout (release)", file=sys.stderr)
    run(["swift", "build", "-c", "release", "--package-path", str(adapter)], env={**os.environ, "DQ_PROJECT": str(ROOT)},
        stdout=sys.stderr)
    built = adapter / ".build" / "release" / "dq-bench-adapter"
    (adapter / ".build" / "release" / "dq-project-version.txt").write_text(commit() + "\n")
    run(["objcopy", "--strip-debug", str(built), str(WORK / "dq-bench-adapter")])
    return WORK / "baseline_cg", WORK / "dq-bench-adapter"


# (system, workload, floor.c arguments but the file): the floor's cases of each workload.
FLOOR_CASES = {
    "enqueue": [("sql-floor", "enqueue", ["enqueue"])],
    "drain": [("sql-floor", "drain", ["drain", "10"])],
    "one-at-a-time": [("sql-floor-c1", "drain", ["drain", "1"])],
    "batch": [("sql-floor", "batch", ["batch"])],
}


def build_floor(n):
    """floor.c with callgrind's markers; an empty file at the newest schema and one holding `n`
    pending jobs (enqueued by floor.c, untimed), both in `WORK`."""
    WORK.mkdir(parents=True, exist_ok=True)
    program = WORK / "floor_cg"
    run(["gcc", "-O2", "-Wall", "-DCALLGRIND_MARKS", "-o", str(program), str(HERE / "sql-floor" / "floor.c"), "-lsqlite3"])
    empty, filled = WORK / "floor-schema.sqlite", WORK / f"floor-{n}.sqlite"
    for path in (empty, filled):
        for stale in path.parent.glob(path.name + "*"):
            stale.unlink()
    for migration in sorted((ROOT / "Migrations").glob("0*.sql")):
        run(["sqlite3", str(empty)], stdin=migration.open(), stdout=subprocess.DEVNULL)
    shutil.copy(empty, filled)
    run([str(program), str(filled), "enqueue", str(n)], stdout=subprocess.DEVNULL)
    run(["sqlite3", str(filled), "PRAGMA wal_checkpoint(TRUNCATE)"], stdout=subprocess.DEVNULL)
    return program, empty, filled


def profile_floor(program, start, arguments, n):
    """One run of floor.c under callgrind on a copy of `start`: (totals, summary, report)."""
    with tempfile.TemporaryDirectory(prefix="dq-floor-") as folder:
        database = pathlib.Path(folder) / "q.db"
        shutil.copy(start, database)
        out = pathlib.Path(folder) / "callgrind.out"
        count = arguments[1] if len(arguments) > 1 else str(n)
        done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(program), str(database),
                               arguments[0], count], capture_output=True, text=True, check=True)
        fields = {}
        for line in pathlib.Path(str(out) + ".1").read_text(errors="replace").splitlines():
            if line.startswith(("totals:", "summary:")):
                name, value = line.split(":", 1)
                fields[name] = int(value.split()[0])
        report = json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])
        if report["jobs"] != n:
            raise SystemExit(f"floor {arguments}: {report['jobs']} jobs, not {n}")
        return fields["totals"], fields["summary"], report


def callgrind(program, workload, extra, n, folder):
    """One run of the adapter `program` under callgrind in `folder`: (the timed loop's dump, stdout).
    A run whose program has not exited 180 s after it started (under callgrind the adapter's drain
    sometimes stays alive after its dump) is run again on a fresh file, at most three times."""
    out = pathlib.Path(folder) / "callgrind.out"
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(program),
               "--workload", workload, "--db", str(pathlib.Path(folder) / "q.db"), "--n", str(n),
               "--sync", "NORMAL", "--batch", "1000", *extra]
    for _ in range(3):
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=180)
            break
        except subprocess.TimeoutExpired:
            print(f"{workload}: still running 180 s after it started; run again", file=sys.stderr)
            for leftover in pathlib.Path(folder).iterdir():
                leftover.unlink()
    else:
        raise SystemExit(f"{' '.join(command)}: three runs in a row did not end")
    dump = pathlib.Path(str(out) + ".1")
    if not dump.exists():
        raise SystemExit(f"{' '.join(command)}: no dump of the timed loop\n{done.stderr[-2000:]}")
    return dump, done.stdout


def profile(program, workload, extra, n):
    """One run under callgrind: (totals, summary, the program's JSON report)."""
    with tempfile.TemporaryDirectory(prefix="dq-instructions-") as folder:
        dump, stdout = callgrind(program, workload, extra, n, folder)
        fields = {}
        for line in dump.read_text(errors="replace").splitlines():
            if line.startswith(("totals:", "summary:")):
                name, value = line.split(":", 1)
                fields[name] = int(value.split()[0])
        report = json.loads([line for line in stdout.splitlines() if line.startswith("{")][-1])
        return fields["totals"], fields["summary"], report


FEATURES = [("drain", "plain"), ("keyed", "keyed"), ("dependent", "dependent"), ("steps", "three-step"),
            ("group", "grouped")]


def features(n):
    """Marginal instructions per job of each feature's drain (see the module's notes)."""
    print("# building durableq-bench (release)", file=sys.stderr)
    run(["swift", "build", "-c", "release", "--product", "durableq-bench", "--package-path", str(ROOT)], stdout=sys.stderr)
    WORK.mkdir(parents=True, exist_ok=True)
    program = WORK / "durableq-bench"
    run(["objcopy", "--strip-debug", str(ROOT / ".build" / "release" / "durableq-bench"), str(program)])
    counts = {}
    for only, _ in FEATURES:
        for size in (n, 2 * n):
            print(f"# {only} N={size}", file=sys.stderr)
            with tempfile.TemporaryDirectory(prefix="dq-features-") as folder:
                out = pathlib.Path(folder) / "callgrind.out"
                command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(program), "--only", only,
                           "--n", str(size), "--repeat", "1", "--dir", folder]
                done = subprocess.run(command, capture_output=True, text=True)
                if done.returncode != 0:
                    raise SystemExit(f"{' '.join(command)} failed\n{done.stderr[-2000:]}")
                totals = [line for line in out.read_text(errors="replace").splitlines() if line.startswith("totals:")]
                counts[(only, size)] = int(totals[0].split()[1])
    return counts


def committed():
    """The newest committed line of each (system, workload): its file name and line, in the order
    tables.py reads the results (by the dates the lines carry: file names end in commits)."""
    return {(system, workload): found for (system, workload, _), found in tables.newest("instructions").items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workloads", default="enqueue,drain,one-at-a-time,batch")
    parser.add_argument("--peers", default=str(PEERS), help="the peers' folder (baseline.c, swift-adapter/)")
    parser.add_argument("--save", action="store_true", help="write results/DATE-instructions-COMMIT.jsonl")
    parser.add_argument("--floor", action="store_true", help="the floor of the store's own SQL beside (sql-floor/floor.c)")
    parser.add_argument("--features", action="store_true", help="a keyed, a dependent, a stepped and a grouped job beside a plain one")
    arguments = parser.parse_args()
    for tool in ("valgrind", "gcc", "objcopy", "swift") + (("sqlite3",) if arguments.floor else ()):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is missing")
    if arguments.features:
        counts = features(arguments.n)
        version = commit()
        date = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
        plain = (counts[("drain", 2 * arguments.n)] - counts[("drain", arguments.n)]) / arguments.n
        print("| job | marginal instructions per job (drained, prefill included) | × plain |")
        print("| --- | ---: | ---: |")
        lines = []
        for only, title in FEATURES:
            per_job = (counts[(only, 2 * arguments.n)] - counts[(only, arguments.n)]) / arguments.n
            print(f"| {title} | {per_job:,.0f} | {per_job / plain:.2f} |")
            lines.append({"date": date, "tool": "valgrind --tool=callgrind (Benchmarks/instructions.py --features)",
                          "key": f"durableq-bench {only}", "workload": f"drain, {title} jobs", "n": [arguments.n, 2 * arguments.n],
                          "version": f"DurableQueue {version}", "marginal_instructions_per_job": round(per_job, 1),
                          "instructions": [counts[(only, arguments.n)], counts[(only, 2 * arguments.n)]]})
        if arguments.save:
            path = RESULTS / f"{datetime.date.today().isoformat()}-features-{version}.jsonl"
            path.write_text("".join(json.dumps(line) + "\n" for line in lines))
            print(f"results: {path.relative_to(ROOT)}", file=sys.stderr)
        return
    baseline, adapter = build(pathlib.Path(arguments.peers))
    version = commit()
    cases = [case for name in arguments.workloads.split(",") for case in CASES[name]]
    if arguments.floor:
        floor, empty, filled = build_floor(arguments.n)
        cases += [case for name in arguments.workloads.split(",") for case in FLOOR_CASES[name]]
    samples = {(system, workload): [] for system, workload, _ in cases}
    for round_ in range(1, arguments.runs + 1):  # in turns, so that nothing drifts onto one system
        for system, workload, extra in cases:
            print(f"# round {round_}: {system} {workload}", file=sys.stderr)
            if system.startswith("sql-floor"):
                start = filled if workload == "drain" else empty
                totals, summary, report = profile_floor(floor, start, extra, arguments.n)
                report = {"commits": None, "sqlite_version": None}
            else:
                program = baseline if system == "c-baseline" else adapter
                totals, summary, report = profile(program, workload, extra, arguments.n)
            if not report.get("ok", True):
                raise SystemExit(f"{system} {workload}: the run failed its checks: {report}")
            samples[(system, workload)].append(
                {"totals": totals, "summary": summary, "commits": report.get("commits"), "sqlite": report.get("sqlite_version")})
    date = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    lines = []
    for (system, workload), runs in samples.items():
        per_job = [run["totals"] / arguments.n for run in runs]
        lines.append({
            "date": date, "tool": "valgrind --tool=callgrind (Benchmarks/instructions.py)", "key": system,
            "workload": workload, "n": arguments.n, "sync": "NORMAL",
            "version": f"libsqlite3 {runs[0]['sqlite'] or ''}".strip() if system == "c-baseline"
            else f"DurableQueue {version}" + (" statements (sql-floor/floor.c)" if system.startswith("sql-floor") else ""),
            "counts": "user-space instructions of every thread in the timed loop (the dump's totals:)",
            "instructions_per_job": round(statistics.median(per_job), 1),
            "min_instructions_per_job": round(min(per_job), 1), "max_instructions_per_job": round(max(per_job), 1),
            "harness_summary_per_job": [round(run["summary"] / arguments.n, 1) for run in runs],
            "commits_per_job": [None if run["commits"] is None else round(run["commits"] / arguments.n, 4) for run in runs],
        })
    before = committed()
    c = {line["workload"]: line["instructions_per_job"] for line in lines if line["key"] == "c-baseline"}
    print("| system | workload | instructions per job (median, min–max) | committed | change | × C baseline |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for line in lines:
        old = before.get((line["key"], line["workload"]))
        old_value = old[1]["instructions_per_job"] if old else None
        change = f"{(line['instructions_per_job'] / old_value - 1) * 100:+.1f} %" if old_value else "–"
        base = c.get(line["workload"])
        ratio = f"{line['instructions_per_job'] / base:.2f}" if base else "–"
        then = "–" if old_value is None else f"{old_value:,.0f} ({old[1]['version']})"
        print(f"| {line['key']} | {line['workload']} | {line['instructions_per_job']:,.0f} "
              f"({line['min_instructions_per_job']:,.0f}–{line['max_instructions_per_job']:,.0f}) | "
              f"{then} | {change} | {ratio} |")
    if arguments.save:
        RESULTS.mkdir(exist_ok=True)
        path = RESULTS / f"{datetime.date.today().isoformat()}-instructions-{version}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        print(f"results: {path.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
