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

--proxy puts the delay in a TCP relay instead (`delay_proxy.py`, half of --rtt-us each way): the
server stays on 127.0.0.1 and every client, pgbench included, connects through the relay. No root
needed, and it works where netem does not; the relay's threads add about 0.25 ms to each round
trip (pgbench's `SELECT 1`: 1.25 ms at --rtt-us 1000) and spend CPU that neither side's figure counts.

    cd ../shared/bench/pg && ../.venv-pg/bin/python $OLDPWD/Benchmarks/pg-rtt/run.py --proxy \
        --out /tmp/results.jsonl --statements /tmp/statements.jsonl [--rtt-us 1000] [harness arguments]

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
    ap.add_argument("--proxy", action="store_true")
    mine, rest = ap.parse_known_args()
    sys.path.insert(0, HARNESS)
    import pgserver
    import harness_pg

    if mine.proxy:
        through_proxy(pgserver, harness_pg, mine.rtt_us)
    else:
        in_namespace_behind_netem(pgserver, harness_pg, mine.rtt_us)
    count_statements(pgserver, mine.statements, mine.rtt_us)
    sys.argv = [os.path.join(HARNESS, "harness_pg.py")] + rest
    try:
        harness_pg.main()
    finally:
        if "--out" in rest:
            annotate(rest[rest.index("--out") + 1], mine.rtt_us, "delay proxy" if mine.proxy else "netem")


def annotate(path, rtt_us, network):
    """Marks every line of the results file `path` with the round trip added and how, so that
    `Benchmarks/tables.py` keeps them apart from runs on the loopback."""
    with open(path) as lines:
        records = [json.loads(line) for line in lines if line.strip()]
    with open(path, "w") as lines:
        for record in records:
            record.setdefault("rtt_us", rtt_us)
            record.setdefault("network", network)
            lines.write(json.dumps(record) + "\n")


def through_proxy(pgserver, harness_pg, rtt_us):
    """Starts a delay proxy in front of each server the harness starts, and points every client at it."""
    start, stop = pgserver.PgServer.start, pgserver.PgServer.stop
    as_postgres = pgserver.PgServer._as_postgres

    def counting(self, cmd):
        if os.path.basename(cmd[0]) == "pg_ctl" and cmd[-1] == "start":
            cmd = cmd[:-1] + ["-o", "-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=top", cmd[-1]]
        return as_postgres(self, cmd)

    pgserver.PgServer._as_postgres = counting

    def started(self):
        start(self)
        self.proxy = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "delay_proxy.py"), "--listen", "127.0.0.1:0",
             "--target", "127.0.0.1:%d" % self.port, "--delay-us", str(rtt_us // 2)],
            stdout=subprocess.PIPE, text=True)
        self.proxy_port = int(self.proxy.stdout.readline().rsplit(":", 1)[1])
        return self

    def stopped(self):
        if getattr(self, "proxy", None):
            self.proxy.terminate()
            self.proxy.wait()
        stop(self)

    pgserver.PgServer.start, pgserver.PgServer.stop = started, stopped
    # The harness's own reads while the server starts go to it directly.
    pgserver.PgServer.url = lambda self, database="postgres": "postgresql://postgres@127.0.0.1:%d/%s?sslmode=disable" % (
        getattr(self, "proxy_port", self.port), database)
    run = subprocess.run

    def pointed(cmd, *args, **kwargs):
        if isinstance(cmd, list) and "-p" in cmd and "pgbench" in os.path.basename(str(cmd[0])):
            cmd = list(cmd)
            cmd[cmd.index("-p") + 1] = str(pgserver_proxy_port(cmd))
        return run(cmd, *args, **kwargs)

    def pgserver_proxy_port(cmd):
        return next(server.proxy_port for server in servers if str(server.port) == cmd[cmd.index("-p") + 1])

    servers = []
    init = pgserver.PgServer.__init__

    def tracked(self, *args, **kwargs):
        init(self, *args, **kwargs)
        servers.append(self)

    pgserver.PgServer.__init__ = tracked
    harness_pg.subprocess.run = pointed


def in_namespace_behind_netem(pgserver, harness_pg, rtt_us):
    """Starts each server in the network namespace, behind netem's delay, and points every client at it."""

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

    network_up(rtt_us)
    atexit.register(network_down)


def count_statements(pgserver, path, rtt_us):
    """Before a database is dropped: what was sent to it, by statement, appended to `path`."""
    drop = pgserver.PgServer.drop_database
    out = open(path, "a")

    def counted_drop(self, name):
        with self.connect() as c:
            c.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            rows = c.execute(
                "SELECT s.calls, s.query, s.total_exec_time FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
                "WHERE d.datname = %s ORDER BY s.calls DESC", (name,)).fetchall()
        out.write(json.dumps({"database": name, "rtt_us": rtt_us, "calls": sum(r[0] for r in rows),
                              "statements": [{"calls": r[0], "query": r[1][:200], "exec_ms": round(r[2], 3)}
                                             for r in rows[:20]]}) + "\n")
        out.flush()
        return drop(self, name)

    pgserver.PgServer.drop_database = counted_drop


if __name__ == "__main__":
    main()
