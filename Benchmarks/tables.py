#!/usr/bin/env python3
"""The current table of each benchmark, from the JSON lines in Benchmarks/results/.

    python3 Benchmarks/tables.py            # prints the tables (Markdown)
    python3 Benchmarks/tables.py --write    # puts them in Benchmarks/README.md, between its markers

Each line belongs to the benchmark its fields say wrote it (instructions.py's and callgrind.sh's
instructions per job, the SQLite peers' run.sh, the PostgreSQL peers' run.sh, durableq-bench's own workloads; A/B rounds
and other one-off lines are in no table). Each row is a system (a peer's key, or the store), a
workload and a synchronous setting, taken from the newest file that has it (files sort by their
dated names) and, within that file, its last line. The history is the files and git.
"""
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
RESULTS = HERE / "results"
README = HERE / "README.md"
BEGIN, END = "<!-- tables: begin (python3 Benchmarks/tables.py --write) -->", "<!-- tables: end -->"


def lines():
    """(file name, JSON object) for every line of every results file, oldest file first."""
    for path in sorted(RESULTS.glob("*.jsonl")):
        for text in path.read_text().splitlines():
            if text.strip():
                yield path.name, json.loads(text)


def kind(line):
    """Which benchmark wrote `line`, or None for a line no table shows."""
    if str(line.get("tool", "")).startswith("valgrind") and "median_instructions_per_job" in line:
        return "callgrind"
    if str(line.get("tool", "")).startswith("valgrind") and "instructions_per_job" in line:
        return "instructions"
    if str(line.get("tool", "")).startswith("valgrind") and "marginal_instructions_per_job" in line:
        return "features"
    if "median_server_cpu_us_per_job" in line:
        return "pg-peers"
    if "median_jobs_per_sec" in line and "key" in line:
        return "peers"
    if "workload" in line and "jobs_per_sec" in line and "key" not in line and "build" not in line and "variant" not in line:
        return "durableq-bench"
    return None


def newest(kind_name):
    """The newest line of each (system, workload, synchronous setting) of one benchmark, with the
    file it came from."""
    rows = {}
    for name, line in lines():
        if kind(line) == kind_name:
            system = line.get("key") or ("PostgreSQL" if "PostgreSQL" in str(line.get("sqlite", "")) else "SQLite")
            setting = line.get("synchronous") or line.get("sync") or ""
            rows[(system, line.get("workload_title", line["workload"]), "" if setting == "-" else setting)] = (name, line)
    return rows


def number(value, digits=0):
    return "–" if value is None else f"{value:,.{digits}f}"


def instructions_per_job_table(kind_name, field):
    """The lines of `kind_name` (callgrind.sh's or instructions.py's), each job's count in
    `field`, with its ratio to the C baseline's of the same workload and synchronous setting."""
    rows = newest(kind_name)
    baseline = {(workload, sync): line for (key, workload, sync), (_, line) in rows.items() if key == "c-baseline"}
    out = ["| system | workload | version | instructions per job (median, min–max) | × C baseline | file |",
           "| --- | --- | --- | ---: | ---: | --- |"]
    for (key, workload, sync), (name, line) in sorted(rows.items(), key=lambda item: (item[0][1], item[0][0])):
        c = baseline.get((workload, sync))
        ratio = f"{line[field] / c[field]:.2f}" if c else "–"
        out.append(f"| {key} | {workload} | {line.get('version', '')} | {number(line[field])} "
                   f"({number(line.get('min_instructions_per_job'))}–{number(line.get('max_instructions_per_job'))}) "
                   f"| {ratio} | {name} |")
    return out


def features_table():
    rows = newest("features")
    plain = next((line for (key, _, _), (_, line) in rows.items() if key.endswith(" drain")), None)
    out = ["| job | version | marginal instructions per job | × plain | file |", "| --- | --- | ---: | ---: | --- |"]
    for (_, workload, _), (name, line) in sorted(rows.items(), key=lambda item: item[1][1]["marginal_instructions_per_job"]):
        ratio = f"{line['marginal_instructions_per_job'] / plain['marginal_instructions_per_job']:.2f}" if plain else "–"
        out.append(f"| {workload} | {line.get('version', '')} | {number(line['marginal_instructions_per_job'])} | {ratio} | {name} |")
    return out


def peers_table(kind_name):
    rows = newest(kind_name)
    server = kind_name == "pg-peers"
    head = "| system | workload | synchronous | jobs/s (median, min–max) | client CPU µs/job |" + (" server CPU µs/job |" if server else "") + " file |"
    out = [head, "| --- | --- | --- | ---: | ---: |" + (" ---: |" if server else "") + " --- |"]
    for (key, workload, sync), (name, line) in sorted(rows.items(), key=lambda item: (item[0][1], item[0][2], item[0][0])):
        if not line.get("supported", True):
            continue
        cells = [key, workload, sync or "–",
                 f"{number(line['median_jobs_per_sec'])} ({number(line.get('min_jobs_per_sec'))}–{number(line.get('max_jobs_per_sec'))})",
                 number(line.get("median_cpu_us_per_job"), 1)]
        if server:
            cells.append(number(line.get("median_server_cpu_us_per_job"), 1))
        out.append("| " + " | ".join(cells + [name]) + " |")
    return out


def bench_table():
    rows = newest("durableq-bench")
    out = ["| store | workload | jobs/s | slowest–fastest | file |", "| --- | --- | ---: | ---: | --- |"]
    for (store, workload, _), (name, line) in sorted(rows.items()):
        spread = (f"{number(line['min_jobs_per_sec'])}–{number(line['max_jobs_per_sec'])}"
                  if "min_jobs_per_sec" in line else "–")
        out.append(f"| {store} | {workload} | {number(line['jobs_per_sec'])} | {spread} | {name} |")
    return out


def tables():
    sections = [
        ("Instructions per job, the guard (`instructions.py`: every thread's, timed loop only)", instructions_per_job_table("instructions", "instructions_per_job")),
        ("A feature's cost beside a plain job's (`instructions.py --features`: N → 2N, whole process)", features_table()),
        ("Instructions per job (`callgrind.sh`: DurableQueue's counts include other threads' pre-loop work)", instructions_per_job_table("callgrind", "median_instructions_per_job")),
        ("Beside the SQLite peers (`peers/run.sh`)", peers_table("peers")),
        ("Beside the PostgreSQL peers (`pg/run.sh`)", peers_table("pg-peers")),
        ("The project's own workloads (`durableq-bench`)", bench_table()),
    ]
    text = []
    for title, rows in sections:
        text += [f"### {title}", ""] + rows + [""]
    return "\n".join(text)


def main():
    generated = tables()
    if sys.argv[1:] == ["--write"]:
        readme = README.read_text()
        start, end = readme.index(BEGIN) + len(BEGIN), readme.index(END)
        README.write_text(readme[:start] + "\n\n" + generated + "\n" + readme[end:])
    elif sys.argv[1:]:
        sys.exit("usage: tables.py [--write]")
    else:
        print(generated)


if __name__ == "__main__":
    main()
