#!/usr/bin/env python3
"""Hostile Kafka connections for bench/run_hostile_bench.sh: half declare
100 MB request frames and send 1 KB of them, then hold; half pipeline 40
Fetch v4 requests of 1 MB each and never read an answer. Holds them until
SIGTERM (or --seconds), re-opening frame holders the broker closes (after
weir.connection.stall.timeout.ms), and prints how many were reopened.

    bench/hostile_clients.py --port P --topic T [--connections 1000] [--seconds 600] [--kinds frame,fetch]
"""
import argparse
import signal
import socket
import struct
import sys
import time


def fetch_v4(correlation_id: int, topic: str, max_bytes: int) -> bytes:
    t = topic.encode()
    body = struct.pack(">iiiib", -1, 0, 0, max_bytes, 0)
    body += struct.pack(">ih", 1, len(t)) + t + struct.pack(">iiqi", 1, 0, 0, max_bytes)
    header = struct.pack(">hhih", 1, 4, correlation_id, 7) + b"hostile"
    frame = header + body
    return struct.pack(">i", len(frame)) + frame


def open_hostile(port: int, kind: str, topic: str) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    # A small receive buffer, so unread answers stay in the broker.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    if kind == "frame":
        s.sendall(struct.pack(">i", 100_000_000) + b"A" * 1000)
    else:
        s.setblocking(False)
        for r in range(40):
            try:
                s.send(fetch_v4(r, topic, 1 << 20))
            except BlockingIOError:
                break
    return s


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--connections", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--kinds", default="frame,fetch", help="frame, fetch or both, alternating")
    a = ap.parse_args()
    stop = False

    def on_term(*_):
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_term)
    conns = []
    for i in range(a.connections):
        kinds = a.kinds.split(",")
        kind = kinds[i % len(kinds)]
        conns.append((kind, open_hostile(a.port, kind, a.topic)))
    print(f"open {len(conns)}", flush=True)
    reopened = 0
    deadline = time.monotonic() + a.seconds
    while not stop and time.monotonic() < deadline:
        time.sleep(1)
        for i, (kind, s) in enumerate(conns):
            # A closed connection reads as b"" (frame holders never get data).
            if kind == "frame":
                try:
                    s.setblocking(False)
                    if s.recv(1, socket.MSG_PEEK) == b"":
                        raise ConnectionError
                except BlockingIOError:
                    continue
                except OSError:
                    pass
                s.close()
                conns[i] = (kind, open_hostile(a.port, kind, a.topic))
                reopened += 1
    print(f"reopened {reopened}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
