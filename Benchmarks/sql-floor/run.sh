#!/usr/bin/env bash
# The floor of DurableQueue's own SQL on this machine: floor.c on a file made by Migrations/, N jobs
# enqueued in batches of 1,000, N enqueued one transaction each, then drained one at a time and 16
# per transaction, ROUNDS times.
# With BASELINE=path/to/baseline (the peers' C baseline binary) its enqueue and drain run in the
# same rounds, for ratios measured in one run.
#
#   Benchmarks/sql-floor/run.sh [N] [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
n=${1:-10000}
rounds=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gcc -O2 -Wall -Wextra -o "$work/floor" "$here/floor.c" -lsqlite3
# A file at the newest schema, as DurableQueue's migrations make it.
for migration in "$root"/Migrations/0*.sql; do sqlite3 "$work/schema.sqlite" < "$migration" > /dev/null; done

fresh() { rm -f "$work/$1"*; cp "$2" "$work/$1"; }
for round in $(seq 1 "$rounds"); do
    fresh batched.sqlite "$work/schema.sqlite"
    "$work/floor" "$work/batched.sqlite" batch "$n"
    fresh enqueued.sqlite "$work/schema.sqlite"
    "$work/floor" "$work/enqueued.sqlite" enqueue "$n"
    sqlite3 "$work/enqueued.sqlite" "PRAGMA wal_checkpoint(TRUNCATE)" > /dev/null
    for batch in 1 16; do
        fresh drained.sqlite "$work/enqueued.sqlite"
        "$work/floor" "$work/drained.sqlite" drain "$batch"
    done
    if [ -n "${BASELINE:-}" ]; then
        for workload in enqueue drain; do
            rm -f "$work"/baseline.sqlite*
            rate=$("$BASELINE" --workload "$workload" --db "$work/baseline.sqlite" --n "$n" --sync NORMAL \
                | sed -nE 's/.*"jobs_per_sec": *([0-9.]+).*/\1/p')
            echo "{\"baseline\":\"$workload\",\"jobs\":$n,\"jobs_per_sec\":$rate}"
        done
    fi
done
