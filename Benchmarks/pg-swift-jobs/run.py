#!/usr/bin/env python3
"""The PostgreSQL peers' harness (../shared/bench/pg) with swift-jobs-postgres as one more system.

swift-jobs (hummingbird-project) is the Swift server alternative on PostgreSQL: its adapter here
(`swift-jobs-pg-bench`, built by ./build.sh) takes the harness's arguments and prints its JSON line,
for the workloads one process runs (W1 enqueue, W2a drain, W2b drain c=1; swift-jobs has no batch
push). The harness itself is not changed: this wrapper adds the system and its command.

    bash Benchmarks/pg-swift-jobs/build.sh
    cd ../shared/bench/pg && DQ_PROJECT=$OLDPWD ./run.sh --only durablequeue  # builds DurableQueue's adapter
    ../.venv-pg/bin/python $OLDPWD/Benchmarks/pg-swift-jobs/run.py --out /tmp/results.jsonl \\
        --only floor-c1,floor-c4,durablequeue,pgqueuer,swift-jobs-postgres [harness_pg.py arguments]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "bench", "pg"))
EXE = os.path.join(HERE, ".build", "release", "swift-jobs-pg-bench")


def main():
    if not os.path.exists(EXE):
        sys.exit("%s is not built: bash %s/build.sh" % (EXE, HERE))
    sys.path.insert(0, HARNESS)
    import harness_pg
    harness_pg.SYSTEMS.append(dict(key="swift-jobs-postgres", label="swift-jobs-postgres", kind="swift",
                                   workloads=["enqueue", "drain", "drain-c1"]))
    harness_command = harness_pg.command

    def command(s, workload, url, n, batch, tmpdir, python):
        if s["kind"] == "swift":
            return [EXE, "--url", url, "--n", str(n), "--batch", str(batch), "--dir", tmpdir] + harness_pg.WL_ARGS[workload]
        return harness_command(s, workload, url, n, batch, tmpdir, python)

    harness_pg.command = command
    sys.argv = [os.path.join(HARNESS, "harness_pg.py")] + sys.argv[1:]
    harness_pg.main()


if __name__ == "__main__":
    main()
