#!/usr/bin/env python3
"""The current numbers of every benchmark, one table, from the JSON lines in Benchmarks/results/.

    python3 Benchmarks/tables.py            # prints the table (Markdown)
    python3 Benchmarks/tables.py --write    # puts it in Benchmarks/README.md, between its markers

Each line belongs to the benchmark its fields say wrote it: instructions.py (instructions per job,
and --features), the SQLite peers' run.sh, the PostgreSQL peers' run.sh, durableq-bench. A/B
rounds, callgrind.sh's lines and other one-off lines are in no row. Each row is a system, a
workload and a synchronous setting, from the newest file that has it (by the dates its lines carry,
else its name's) and, within that file, its last line. The history is the files and git.
"""
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
RESULTS = HERE / "results"
README = HERE / "README.md"
BEGIN, END = "<!-- tables: begin (python3 Benchmarks/tables.py --write) -->", "<!-- tables: end -->"


def lines():
    """(file name, JSON object) for every line of every results file, oldest file first: by the
    newest `date` a file's lines carry, else by the date its name starts with."""
    files = []
    for path in RESULTS.glob("*.jsonl"):
        parsed = [json.loads(text) for text in path.read_text().splitlines() if text.strip()]
        dates = [str(line["date"]) for line in parsed if isinstance(line, dict) and "date" in line]
        files.append((max(dates) if dates else path.name[:10], path.name, parsed))
    for _, name, parsed in sorted(files):
        for line in parsed:
            yield name, line


def kind(line):
    """Which benchmark wrote `line`, or None for a line no table shows."""
    if "groups_per_job" in line:
        return None  # breakdown.py's groups: the script prints them; its total is not a guard number
    if str(line.get("tool", "")).startswith("valgrind") and "instructions_per_job" in line:
        return "instructions" if "build" not in line else None  # an A/B round's lines name their build
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
            if line.get("rtt_us"):
                setting = f"+{line['rtt_us'] / 1000:g} ms RTT ({line.get('network', 'netem')})"
            rows[(system, line.get("workload_title", line["workload"]), "" if setting == "-" else setting)] = (name, line)
    return rows


def number(value, digits=0):
    return "–" if value is None else f"{value:,.{digits}f}"


def spread(line, low, high, digits=0):
    """` (min–max)` of `line`, or nothing when it has no spread."""
    return f" ({number(line[low], digits)}–{number(line[high], digits)})" if low in line and high in line else ""


# Each benchmark's lines as rows: its name, what it measures, the field of the value (also what the
# C baseline's ratio divides) and the fields of its spread. callgrind.sh's lines are in no row: its
# DurableQueue counts include other threads' work before its timed loop (see README).
MEASURES = {
    "instructions": ("instructions.py", "instructions/job", "instructions_per_job", "min_instructions_per_job",
                     "max_instructions_per_job"),
    "features": ("instructions.py --features", "instructions/job (marginal)", "marginal_instructions_per_job", None, None),
    "peers": ("peers/run.sh", "jobs/s", "median_jobs_per_sec", "min_jobs_per_sec", "max_jobs_per_sec"),
    "pg-peers": ("pg/run.sh", "jobs/s", "median_jobs_per_sec", "min_jobs_per_sec", "max_jobs_per_sec"),
    "durableq-bench": ("durableq-bench", "jobs/s", "jobs_per_sec", "min_jobs_per_sec", "max_jobs_per_sec"),
}


def compared(rows, field):
    """The peers' rows shown: DurableQueue's, the baselines' and floors', and in each workload and
    setting the fastest of the others."""
    ours = ("durablequeue", "c-baseline", "floor-")
    best = {}
    for (key, workload, sync), (_, line) in rows.items():
        if not key.startswith(ours) and line.get("supported", True) and line.get(field) is not None:
            if (workload, sync) not in best or line[field] > rows[best[(workload, sync)]][1][field]:
                best[(workload, sync)] = (key, workload, sync)
    return {row: value for row, value in rows.items() if row[0].startswith(ours) or row in best.values()}


def table():
    """One Markdown table: the newest line of every benchmark, system, workload and setting."""
    out = ["| benchmark | system | workload | sync | measure | value (min–max) | × C baseline | file |",
           "| --- | --- | --- | --- | --- | ---: | ---: | --- |"]
    for kind_name, (benchmark, measure, field, low, high) in MEASURES.items():
        rows = newest(kind_name)
        if kind_name in ("peers", "pg-peers"):
            rows = compared(rows, field)
        baseline = {(workload, sync): line for (key, workload, sync), (_, line) in rows.items() if key == "c-baseline"}
        for (key, workload, sync), (name, line) in sorted(rows.items(), key=lambda item: (item[0][1], item[0][2], item[0][0])):
            if not line.get("supported", True) or field not in line:
                continue
            c = baseline.get((workload, sync))
            ratio = f"{line[field] / c[field]:.2f}" if c and c.get(field) else "–"
            value = number(line[field]) + (spread(line, low, high) if low else "")
            out.append(f"| {benchmark} | {key} | {workload} | {sync or '–'} | {measure} | {value} | {ratio} | {name} |")
    return "\n".join(out) + "\n"


def main():
    generated = table()
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
