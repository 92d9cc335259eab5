#!/usr/bin/env python3
"""A thousand simulated power losses per durability (issue 73): the tests' crash VFS cuts the power of
a worker process at a chosen write or sync, and the file it leaves is checked.

    swift build --product durableq-test-worker       # or any build of the tests
    python3 Benchmarks/power-loss/run.py [--cuts 1000] [--seed 1] [--out results.jsonl]

Per durability (processCrash: synchronous=NORMAL; powerLoss: FULL), half of the cuts fall in an
`enqueue` worker (300 jobs, one call each, into a new file: its creation and schema included) and
half in a `work` worker draining 40 jobs of a copied file; each cut is a random write or sync among
those the run makes. After each cut:
  always: `PRAGMA integrity_check` is ok, every job's history is a chain ending in its state, the
          jobs present are a prefix of the enqueues (ids 1…k), and a drain's file runs to its end in
          a worker without cuts (every job succeeded, each started only by attempts the file counts);
  powerLoss: every enqueue whose call returned is in the file;
  processCrash: what was lost is counted (returned − kept): the window the documentation states.
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
    env = dict(os.environ, CRASHVFS_CUT_AT=str(cut), CRASHVFS_DURABILITY=durability)
    if cut is None:
        env.pop("CRASHVFS_CUT_AT")
    p = subprocess.run([WORKER] + args, capture_output=True, text=True, timeout=timeout, env=env)
    return p.returncode, p.stdout


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
        status, _ = run(["enqueue", base, "40"], None, "processCrash")
        assert status == 0, "could not make the drain's file"
        for durability in ("processCrash", "powerLoss"):
            report = {"durability": durability, "runs": 0, "cut": 0, "finished_first": 0, "problems": [],
                      "enqueues_returned": 0, "enqueues_lost_after_return": 0, "most_lost_in_one_cut": 0}
            index = -1
            # Until --cuts runs were cut (a cut past the end of a run's writes cuts nothing).
            while report["cut"] < args.cuts and report["runs"] < 3 * args.cuts:
                index += 1
                path = os.path.join(work, "f.sqlite")
                for suffix in ("", "-wal", "-shm"):
                    if os.path.exists(path + suffix):
                        os.remove(path + suffix)
                report["runs"] += 1
                if index % 2 == 0:
                    cut = rng.randint(1, 700 if durability == "processCrash" else 1400)
                    status, out = run(["enqueue", path, "300"], cut, durability)
                    returned = [int(l.split()[1]) for l in out.splitlines() if l.startswith("enqueued ")]
                    # The next open finishes a schema the cut left halfway (no job enqueued).
                    opened, _ = run(["enqueue", path, "0"], None, durability)
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
                    status, out = run(["work", path, path + ".log", "--until-done", "--job-ms", "1"], cut, durability)
                    problems, ids = check_file(path)
                    if len(ids) != 40:
                        problems.append("the drain's file has %d of its 40 jobs" % len(ids))
                    again, _ = run(["work", path, path + ".log", "--until-done", "--lease-ms", "300", "--job-ms", "1"], None,
                                   durability)
                    db = sqlite3.connect(path)
                    left = db.execute("SELECT count(*) FROM jobs WHERE state <> 'succeeded'").fetchone()[0]
                    db.close()
                    if again != 0 or left:
                        problems.append("after the cut, a worker left %d jobs unfinished (exit %d)" % (left, again))
                if status == CUT_EXIT:
                    report["cut"] += 1
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
