#!/usr/bin/env python3
"""The PostgreSQL peers' harness (../shared/bench/pg) with the server on another "host".

The server runs in a network namespace of its own, behind a veth pair whose two ends each delay
what they send by half of --rtt-us (netem): every round trip between a worker and the server
costs that much, as it does when the database is on another machine. Every statement is counted
with pg_stat_statements per database before the harness drops it (top-level statements only:
what a client sent, not the foreign-key checks the server runs inside them), so the JSONL of
statements (--statements) says what each system sent per job: round trips are what users pay
across a network.

    cd ../shared/bench/pg && sudo ../.venv-pg/bin/python $OLDPWD/Benchmarks/pg-rtt/run.py \\
        --out /tmp/results.jsonl --statements /tmp/statements.jsonl \\
        [--rtt-us 1000] [harness_pg.py arguments: --only, --workloads, --n, --runs]

--rtt-us 0 adds no delay (the veth's own, tens of microseconds): the statements per job all the
same, on a kernel without netem (`tc qdisc … netem` says "Specified qdisc kind is unknown").

Needs root (ip netns, tc), the harness's virtualenv and its folder as the working directory (run
../shared/bench/pg/run.sh once first; with DQ_PROJECT set it builds DurableQueue's adapter). The
harness itself is not changed: this wrapper moves the server it starts and points every client at
the server's address.
"""
import argparse
import atexit
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "bench", "pg"))
NETNS = "dqpg"
HOST_IF, SERVER_IF = "dqpg-host", "dqpg-srv"
HOST_IP, SERVER_IP = "10.77.0.1", "10.77.0.2"


def sh(*cmd):
    subprocess.run(cmd, check=True)


def network_up(rtt_us):
    network_down()
    sh("ip", "netns", "add", NETNS)
    sh("ip", "link", "add", HOST_IF, "type", "veth", "peer", "name", SERVER_IF)
    sh("ip", "link", "set", SERVER_IF, "netns", NETNS)
    sh("ip", "addr", "add", HOST_IP + "/24", "dev", HOST_IF)
    sh("ip", "link", "set", HOST_IF, "up")
    inside = ["ip", "netns", "exec", NETNS]
    sh(*inside, "ip", "addr", "add", SERVER_IP + "/24", "dev", SERVER_IF)
    sh(*inside, "ip", "link", "set", SERVER_IF, "up")
    sh(*inside, "ip", "link", "set", "lo", "up")
    if rtt_us == 0:
        return
    half = "%dus" % (rtt_us // 2)
    sh("tc", "qdisc", "add", "dev", HOST_IF, "root", "netem", "delay", half)
    sh(*inside, "tc", "qdisc", "add", "dev", SERVER_IF, "root", "netem", "delay", half)


def network_down():
    subprocess.run(["ip", "link", "del", HOST_IF], stderr=subprocess.DEVNULL)
    subprocess.run(["ip", "netns", "del", NETNS], stderr=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--rtt-us", type=int, default=1000)
    ap.add_argument("--statements", required=True)
    mine, rest = ap.parse_known_args()
    sys.path.insert(0, HARNESS)
    import pgserver
    import harness_pg

    # The server starts inside the namespace and listens on its veth address only.
    as_postgres = pgserver.PgServer._as_postgres

    def in_namespace(self, cmd):
        cmd = [c.replace("listen_addresses=127.0.0.1", "listen_addresses=" + SERVER_IP) for c in cmd]
        if os.path.basename(cmd[0]) == "pg_ctl" and cmd[-1] == "start":
            # initdb trusts 127.0.0.1 only: trust the host end of the veth too.
            with open(os.path.join(cmd[cmd.index("-D") + 1], "pg_hba.conf"), "a") as hba:
                hba.write("host all all %s/32 trust\n" % HOST_IP)
            cmd = cmd[:-1] + ["-o", "-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=top", cmd[-1]]
            return ["ip", "netns", "exec", NETNS] + as_postgres(self, cmd)
        return as_postgres(self, cmd)

    pgserver.PgServer._as_postgres = in_namespace
    pgserver.PgServer.url = lambda self, database="postgres": "postgresql://postgres@%s:%d/%s?sslmode=disable" % (
        SERVER_IP, self.port, database)

    # pgbench (the floor) is told the server's address too.
    run = subprocess.run

    def pointed(cmd, *args, **kwargs):
        if isinstance(cmd, list) and "-h" in cmd:
            cmd = list(cmd)
            cmd[cmd.index("-h") + 1] = SERVER_IP
        return run(cmd, *args, **kwargs)

    harness_pg.subprocess.run = pointed

    # Before a database is dropped: what was sent to it, by statement.
    drop = pgserver.PgServer.drop_database
    out = open(mine.statements, "a")

    def counted_drop(self, name):
        with self.connect() as c:
            c.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            rows = c.execute(
                "SELECT s.calls, s.query FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
                "WHERE d.datname = %s ORDER BY s.calls DESC", (name,)).fetchall()
        out.write(json.dumps({"database": name, "rtt_us": mine.rtt_us, "calls": sum(r[0] for r in rows),
                              "statements": [{"calls": r[0], "query": r[1][:200]} for r in rows[:20]]}) + "\n")
        out.flush()
        return drop(self, name)

    pgserver.PgServer.drop_database = counted_drop

    network_up(mine.rtt_us)
    atexit.register(network_down)
    sys.argv = [os.path.join(HARNESS, "harness_pg.py")] + rest
    harness_pg.main()


if __name__ == "__main__":
    main()
