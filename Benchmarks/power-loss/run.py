#!/usr/bin/env python3
"""A thousand simulated power losses per durability (issue 73): the tests' crash VFS cuts the power of
a worker process at a chosen write or sync, and the file it leaves is checked.

    swift build --product durableq-test-worker       # or any build of the tests
    python3 Benchmarks/power-loss/run.py [--cuts 1000] [--seed 1] [--out results.jsonl]

Per durability (processCrash: synchronous=NORMAL; powerLoss: FULL), a third of the cuts fall in an
`enqueue` worker (300 jobs, one call each, into a new file: its creation and schema included), a
third in a `work` worker draining 40 jobs of a copied file, and a third in a `mixed` worker (every
feature: unique keys, a keyed queue, dependencies, sequences, groups, durable and transactional
steps, a schedule; enqueued one call at a time while its engine runs them, 12 rounds, into a file
whose schema exists); each cut is a random write or sync among those the run makes. After each cut:
  always: `PRAGMA integrity_check` is ok, every job's history is a chain ending in its state, the
          jobs present are a prefix of the enqueues (ids 1…k), and a drain's or a mixed worker's
          file runs to its end in a worker without cuts (every job succeeded once; each
          transactional step's ledger row written once);
  powerLoss: every enqueue whose call returned is in the file, every job and group whose result a
          mixed worker saw has succeeded there, and none of those jobs starts again;
  processCrash: what was lost is the latest commits (a mixed worker's result printed before the
          call creating a job still in the file began is there too: `older_results_checked` counts
          them), and it is counted (returned − kept): the window the documentation states.
Runs until --cuts runs per durability lost their power (`cut`; `runs` counts those that ended first
too). Prints one JSON line per durability (and appends them to --out).
"""
import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
WORKER = os.path.join(ROOT, ".build", "debug", "durableq-test-worker")
CUT_EXIT = 86


def run(args, cut, durability, timeout=120):
    """Runs the worker with `args`, its power cut at the `cut`-th write or sync (None: never): its
    exit status, its output and its process id."""
    env = dict(os.environ, CRASHVFS_CUT_AT=str(cut), CRASHVFS_DURABILITY=durability)
    if cut is None:
        env.pop("CRASHVFS_CUT_AT")
    p = subprocess.Popen([WORKER] + args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    out, _ = p.communicate(timeout=timeout)
    return p.returncode, out, p.pid


def check_mixed(path, out, durability, report):
    """Problems of a mixed worker's file after its cut, and after a worker without cuts ran it to its end."""
    problems, ids = check_file(path)
    words = [l.split() for l in out.splitlines()]
    enqueued = {int(w[1]) for w in words if len(w) == 2 and w[0] == "enqueued"}
    succeeded = {int(w[1]) for w in words if len(w) == 2 and w[0] == "succeeded"}
    groups = {int(w[2]) for w in words if len(w) == 3 and w[0] == "succeeded"}
    db = sqlite3.connect(path)
    states = dict(db.execute("SELECT id, state FROM jobs"))
    group_states = dict(db.execute("SELECT id, state FROM groups")) if ids else {}
    db.close()
    # What was lost is the latest commits: a result printed before the call that created a job
    # still in the file began (the worker enqueues one call at a time, printing each as it returns)
    # was committed before that job, so it is there too. A job's first line is its creating call's.
    lines = [w for w in words if len(w) >= 2 and w[0] in ("enqueued", "succeeded")]
    first, last_creation = set(), None
    for index, w in enumerate(lines):
        if w[0] == "enqueued" and len(w) == 2 and int(w[1]) not in first:
            first.add(int(w[1]))
            if int(w[1]) in ids:
                last_creation = index
    before = [i for i in range(last_creation or 0) if lines[i][0] == "enqueued"]
    older = [w for w in lines[:before[-1]] if w[0] == "succeeded"] if before else []
    report["older_results_checked"] += len(older)
    missing = [w for w in older if (states.get(int(w[1])) if len(w) == 2 else group_states.get(int(w[2]))) != "succeeded"]
    if missing:
        problems.append("results seen before a kept commit were lost: %s" % missing[:5])
    lost = len(enqueued - set(ids))
    unseen = len([j for j in succeeded if states.get(j) != "succeeded"]) + len([g for g in groups if group_states.get(g) != "succeeded"])
    report["enqueues_returned"] += len(enqueued)
    report["enqueues_lost_after_return"] += lost
    report["most_lost_in_one_cut"] = max(report["most_lost_in_one_cut"], lost)
    report["results_seen"] += len(succeeded) + len(groups)
    report["results_lost_after_seen"] += unseen
    if durability == "powerLoss" and (lost or unseen):
        problems.append("%d enqueues returned and %d results seen were lost" % (lost, unseen))
    again, _, pid = run(["work", path, path + ".log", "--until-done", "--lease-ms", "300", "--job-ms", "1"], None, durability)
    db = sqlite3.connect(path)
    top = max(ids) if ids else 0
    left = db.execute("SELECT count(*) FROM jobs WHERE id <= ? AND state <> 'succeeded'", (top,)).fetchone()[0]
    twice = db.execute(
        "SELECT count(*) FROM (SELECT job_id FROM job_events WHERE to_state = 'succeeded' GROUP BY job_id HAVING count(*) > 1)").fetchone()[0]
    ledger_jobs = [r[0] for r in db.execute("SELECT id FROM jobs WHERE kind = 'ledger'")]
    ledger = dict(db.execute("SELECT job_id, count(*) FROM ledger GROUP BY job_id")) if ledger_jobs else {}
    db.close()
    if again != 0 or left:
        problems.append("after the cut, a worker left %d jobs unfinished (exit %d)" % (left, again))
    if twice:
        problems.append("%d jobs succeeded twice" % twice)
    if any(ledger.get(j) != 1 for j in ledger_jobs) or len(ledger) != len(ledger_jobs):
        problems.append("ledger rows per job: %s" % ledger)
    with open(path + ".log") as log:
        restarted = {int(l.split()[1]) for l in log if l.startswith("start ") and l.split()[3] == str(pid)}
    if durability == "powerLoss" and restarted & succeeded:
        problems.append("jobs whose result was seen ran again: %s" % sorted(restarted & succeeded))
    return problems


def check_file(path):
    """Problems of the file at `path` (none: an empty list) and the ids of its jobs."""
    problems = []
    if not os.path.exists(path):
        return problems, []
    db = sqlite3.connect(path)
    try:
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        if integrity != "ok":
            problems.append("integrity: " + integrity[:200])
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "jobs" not in tables:
            return problems, []
        ids = [r[0] for r in db.execute("SELECT id FROM jobs ORDER BY id")]
        if ids != list(range(1, len(ids) + 1)):
            problems.append("not a prefix: %s" % ids[:20])
        # Each job's history: a chain from its creation to its state.
        for job_id, state, created in db.execute("SELECT id, state, created_state FROM jobs"):
            rows = db.execute("SELECT from_state, to_state FROM job_events WHERE job_id = ? ORDER BY seq", (job_id,)).fetchall()
            last = created
            for frm, to in rows:
                if frm is not None and frm != last:
                    problems.append("job %d: history jumps from %s to a change from %s" % (job_id, last, frm))
                    break
                last = to
            if last != state:
                problems.append("job %d: history ends in %s, the row says %s" % (job_id, last, state))
        return problems, ids
    finally:
        db.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cuts", type=int, default=1000, help="power losses per durability")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out")
    args = ap.parse_args()
    if not os.path.exists(WORKER):
        sys.exit("build the tests first: %s is missing" % WORKER)
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="dq-power-loss-")
    try:
        base = os.path.join(work, "base.sqlite")
        status, _, _ = run(["enqueue", base, "40"], None, "processCrash")
        assert status == 0, "could not make the drain's file"
        empty = os.path.join(work, "empty.sqlite")
        status, _, _ = run(["open", empty], None, "processCrash")
        assert status == 0, "could not make the mixed worker's file"
        for durability in ("processCrash", "powerLoss"):
            report = {"durability": durability, "runs": 0, "cut": 0, "finished_first": 0, "problems": [],
                      "enqueues_returned": 0, "enqueues_lost_after_return": 0, "most_lost_in_one_cut": 0,
                      "results_seen": 0, "results_lost_after_seen": 0, "older_results_checked": 0, "by_workload": {}}
            index = -1
            # Until --cuts runs were cut (a cut past the end of a run's writes cuts nothing).
            while report["cut"] < args.cuts and report["runs"] < 3 * args.cuts:
                index += 1
                path = os.path.join(work, "f.sqlite")
                for suffix in ("", "-wal", "-shm", ".log"):
                    if os.path.exists(path + suffix):
                        os.remove(path + suffix)
                report["runs"] += 1
                workload = ("enqueue", "drain", "mixed")[index % 3]
                if workload == "mixed":
                    shutil.copy(empty, path)
                    cut = rng.randint(1, 1400 if durability == "processCrash" else 1650)
                    status, out, _ = run(["mixed", path, path + ".log", "12"], cut, durability)
                    problems = check_mixed(path, out, durability, report)
                elif workload == "enqueue":
                    cut = rng.randint(1, 700 if durability == "processCrash" else 1400)
                    status, out, _ = run(["enqueue", path, "300"], cut, durability)
                    returned = [int(l.split()[1]) for l in out.splitlines() if l.startswith("enqueued ")]
                    # The next open finishes a schema the cut left halfway (no job enqueued).
                    opened, _, _ = run(["enqueue", path, "0"], None, durability)
                    problems, ids = check_file(path)
                    if opened != 0:
                        problems.append("the file did not open after the cut (exit %d)" % opened)
                    lost = len(set(returned) - set(ids))
                    report["enqueues_returned"] += len(returned)
                    report["enqueues_lost_after_return"] += lost
                    report["most_lost_in_one_cut"] = max(report["most_lost_in_one_cut"], lost)
                    if durability == "powerLoss" and lost:
                        problems.append("%d enqueues returned and were lost" % lost)
                else:
                    shutil.copy(base, path)
                    cut = rng.randint(1, 600)
                    status, out, _ = run(["work", path, path + ".log", "--until-done", "--job-ms", "1"], cut, durability)
                    problems, ids = check_file(path)
                    if len(ids) != 40:
                        problems.append("the drain's file has %d of its 40 jobs" % len(ids))
                    again, _, _ = run(["work", path, path + ".log", "--until-done", "--lease-ms", "300", "--job-ms", "1"], None,
                                      durability)
                    db = sqlite3.connect(path)
                    left = db.execute("SELECT count(*) FROM jobs WHERE state <> 'succeeded'").fetchone()[0]
                    db.close()
                    if again != 0 or left:
                        problems.append("after the cut, a worker left %d jobs unfinished (exit %d)" % (left, again))
                counts = report["by_workload"].setdefault(workload, {"runs": 0, "cut": 0})
                counts["runs"] += 1
                if status == CUT_EXIT:
                    report["cut"] += 1
                    counts["cut"] += 1
                elif status == 0:
                    report["finished_first"] += 1
                else:
                    problems.append("the worker exited %d" % status)
                for problem in problems:
                    report["problems"].append({"cut": cut, "index": index, "problem": problem})
            report["ok"] = not report["problems"]
            line = json.dumps(report)
            print(line)
            if args.out:
                with open(args.out, "a") as out_file:
                    out_file.write(line + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
