#!/usr/bin/env python3
"""A TCP relay that delays what it relays: the database on another host, on a kernel without netem.

    python3 Benchmarks/pg-rtt/delay_proxy.py --listen 127.0.0.1:PORT --target 127.0.0.1:5432 \\
        [--delay-us 500] [--max-seconds 7200]

Every chunk read from either side is written to the other `--delay-us` after it arrived, in order:
a round trip through the relay costs twice that (1 ms at the default). Chunks are not merged or
split, so a client's pipelined messages stay as they were sent. Each direction of a connection has
a reading and a writing thread: the writer sleeps until a chunk is due with the precision of the
system's sleep (an event loop's timers round up to whole milliseconds). The relay stops by itself
after `--max-seconds` (a forgotten one ends), and on SIGTERM or SIGINT; a connection ends when
either side closes it. Prints `listening HOST:PORT` once it accepts connections.
"""
import argparse
import queue
import signal
import socket
import threading
import time


def pump(source, destination, delay):
    """Copies `source` to `destination`, each chunk `delay` seconds after it was read; then
    closes `destination`'s sending side."""
    chunks = queue.SimpleQueue()

    def deliver():
        try:
            while (item := chunks.get())[1]:
                due, chunk = item
                wait = due - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                destination.sendall(chunk)
        except OSError:
            pass
        try:
            destination.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    writer = threading.Thread(target=deliver, daemon=True)
    writer.start()
    try:
        while chunk := source.recv(65536):
            chunks.put((time.monotonic() + delay, chunk))
    except OSError:
        pass
    chunks.put((0.0, b""))
    writer.join()


def relay(client, target, delay):
    try:
        server = socket.create_connection(target)
    except OSError:
        client.close()
        return
    for side in (client, server):
        side.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    up = threading.Thread(target=pump, args=(client, server, delay), daemon=True)
    up.start()
    pump(server, client, delay)
    up.join()
    client.close()
    server.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", required=True, help="HOST:PORT (PORT 0: any free port)")
    parser.add_argument("--target", required=True, help="HOST:PORT of the server")
    parser.add_argument("--delay-us", type=int, default=500, help="each way (default 500)")
    parser.add_argument("--max-seconds", type=float, default=7200)
    arguments = parser.parse_args()
    listen_host, listen_port = arguments.listen.rsplit(":", 1)
    target_host, target_port = arguments.target.rsplit(":", 1)
    target, delay = (target_host, int(target_port)), arguments.delay_us / 1e6

    listener = socket.create_server((listen_host, int(listen_port)))
    print("listening %s:%d" % listener.getsockname()[:2], flush=True)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())

    def accept():
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=relay, args=(client, target, delay), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    stop.wait(arguments.max_seconds)
    listener.close()


if __name__ == "__main__":
    main()
