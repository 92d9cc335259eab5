#!/usr/bin/env bash
# The PostgreSQL drain floor of 32 jobs per transaction (claim32.sql), beside DurableQueue's drain,
# on one server, in fresh databases: what "the drain ≥ 50 % of a floor that claims and ends 32 jobs
# per transaction" is measured against. The table and prefill are the shared harness's floor
# (../../../shared/bench/pg/floor/: schema.sql, prefill.sql), copied here as schema.sql/prefill.sql.
#
#   Benchmarks/pg-floor/run.sh PORT [N] [RUNS]      # a server on 127.0.0.1:PORT, user postgres, trust
#
# Prints one JSON line per run of each: the floor at 1 and 4 clients, and durableq-bench's drain
# (release build, default settings) — with the server's settings.
set -euo pipefail
cd "$(dirname "$0")"
port=$1; n=${2:-99968}; runs=${3:-3}
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
psql=("$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -X -q -v ON_ERROR_STOP=1)
(cd ../.. && swift build -c release --product durableq-bench >/dev/null)
settings=$("${psql[@]}" -t -A -c "SELECT string_agg(name || '=' || setting, ' ') FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'server_version')")
for run in $(seq 1 "$runs"); do
    for clients in 1 4; do
        "${psql[@]}" -c "DROP DATABASE IF EXISTS floor32" -c "CREATE DATABASE floor32"
        "${psql[@]}" -d floor32 -f schema.sql
        "${psql[@]}" -d floor32 -v n="$n" -f prefill.sql
        "${psql[@]}" -d floor32 -c "VACUUM ANALYZE jobs" -c "CHECKPOINT"
        transactions=$(( n / 32 / clients ))
        out=$("$bin/pgbench" -h 127.0.0.1 -p "$port" -U postgres -n -M prepared -c "$clients" -j "$clients" -t "$transactions" -f claim32.sql floor32 2>&1)
        tps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\) .*/\1/p' | tail -1)
        [ -n "$tps" ] || { echo "pgbench failed: $out" >&2; exit 1; }
        left=$("${psql[@]}" -d floor32 -t -A -c "SELECT count(*) FROM jobs WHERE state <> 2")
        echo "{\"system\":\"pgbench floor, 32 jobs per transaction\",\"clients\":$clients,\"run\":$run,\"jobs\":$(( transactions * clients * 32 )),\"jobs_per_sec\":$(echo "$tps * 32" | bc),\"unfinished\":$left,\"settings\":\"$settings\"}"
    done
    line=$(../../.build/release/durableq-bench --only drain --n "$n" --repeat 1 --dir /tmp/pg-floor-bench \
        --postgres "postgres://postgres@127.0.0.1:$port/postgres" | grep '"workload": "drain"')
    echo "{\"system\":\"DurableQueue drain (durableq-bench, default settings)\",\"run\":$run,\"result\":$line}"
done
