#!/usr/bin/env python3
"""What a /metrics scrape costs with many partitions, and what it does to Kafka
requests served meanwhile.

Starts `weir` (127.0.0.1, temp log dir), creates --partitions partitions in
topics of 1000 through the Kafka protocol (`weir topics`), then scrapes /metrics
--scrapes times while a second thread keeps one Kafka connection busy with
ApiVersions requests (one at a time) and records their round trips. Prints the
scrape times, the body size and the ApiVersions round trips during scrapes
against those before them (the same connection, the same run).

    bench/admin_scrape_bench.py --weir build/bin/weir [--partitions 10000] [--scrapes 10]
"""
import argparse
import http.client
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port} after {timeout} s")


def api_versions_rtts(port: int, stop: threading.Event, out: list) -> None:
    # ApiVersions v0: size, api_key 18, version 0, correlation id, client id "b".
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        cid = 0
        while not stop.is_set():
            cid += 1
            body = struct.pack(">hhih", 18, 0, cid, 1) + b"b"
            t0 = time.perf_counter()
            s.sendall(struct.pack(">i", len(body)) + body)
            size = struct.unpack(">i", recv_exact(s, 4))[0]
            recv_exact(s, size)
            out.append((t0, time.perf_counter() - t0))


def recv_exact(s: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise RuntimeError("connection closed")
        buf += chunk
    return buf


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--weir", required=True)
    ap.add_argument("--partitions", type=int, default=10000)
    ap.add_argument("--scrapes", type=int, default=10)
    args = ap.parse_args()

    kafka, admin = free_port(), free_port()
    with tempfile.TemporaryDirectory(prefix="weir-scrape-") as tmp:
        proc = subprocess.Popen(
            [args.weir, "serve", "--override", f"listeners=PLAINTEXT://127.0.0.1:{kafka}",
             "--override", f"log.dirs={tmp}/data", "--override", f"weir.admin.listener=http://127.0.0.1:{admin}",
             "--override", "log.segment.bytes=1048576", "--override", "log.index.size.max.bytes=4096"],
            stdout=open(f"{tmp}/weir.log", "wb"), stderr=subprocess.STDOUT)
        try:
            wait_port(kafka, 30)
            t0 = time.monotonic()
            for i in range((args.partitions + 999) // 1000):
                n = min(1000, args.partitions - i * 1000)
                subprocess.run([args.weir, "topics", "--bootstrap-server", f"127.0.0.1:{kafka}", "--create",
                                "--topic", f"many-{i}", "--partitions", str(n)], check=True,
                               stdout=subprocess.DEVNULL, timeout=600)
            print(f"created {args.partitions} partitions in {time.monotonic() - t0:.1f} s")

            rtts: list = []
            stop = threading.Event()
            pinger = threading.Thread(target=api_versions_rtts, args=(kafka, stop, rtts))
            pinger.start()
            time.sleep(2)  # baseline
            windows, scrape_s, size = [], [], 0
            for _ in range(args.scrapes):
                c = http.client.HTTPConnection("127.0.0.1", admin, timeout=120)
                start = time.perf_counter()
                c.request("GET", "/metrics")
                body = c.getresponse().read()
                end = time.perf_counter()
                c.close()
                scrape_s.append(end - start)
                windows.append((start, end))
                size = len(body)
                time.sleep(0.2)
            stop.set()
            pinger.join()

            during = [rtt for (t, rtt) in rtts if any(a <= t <= b for a, b in windows)]
            before = [rtt for (t, rtt) in rtts if t < windows[0][0]]
            ms = lambda v: f"{v * 1000:.2f} ms"
            print(f"/metrics: {size / 1e6:.1f} MB, median {ms(statistics.median(scrape_s))}, max {ms(max(scrape_s))}")
            print(f"ApiVersions round trip before scrapes: median {ms(statistics.median(before))}, "
                  f"max {ms(max(before))} ({len(before)} requests)")
            if during:
                print(f"ApiVersions round trip during scrapes: median {ms(statistics.median(during))}, "
                      f"max {ms(max(during))} ({len(during)} requests)")
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
