#!/usr/bin/env python3
"""Recording TCP proxy for Kafka clients (capture tooling, not run by CI).

Listens on 127.0.0.1, forwards every connection to one upstream broker, and
writes each complete client->broker request frame (4-byte size + body, exactly
as sent) to OUT/<client>-<NN>-<ApiName>-v<version>.bin. Requests are forwarded
unchanged.

The upstream (librdkafka's mock cluster) advertises its own address in
Metadata and FindCoordinator responses, which would make clients reconnect
straight to it. So in the *responses* of those two APIs the proxy replaces the
upstream port that follows the upstream host string with its own port. Host
and port keep their size, so no length field changes.

Usage:
  record_proxy.py --upstream 127.0.0.1:PORT --out DIR --client NAME
                  [--listen-port 0] [--timeout 60] [--all]
The first stdout line is "LISTEN 127.0.0.1:PORT". Without --all only the
first request of each (api key, version) pair is written. The proxy exits when
the timeout expires or when stdin reaches EOF.
"""

import argparse
import os
import select
import socket
import struct
import sys
import threading
import time

API_NAMES = {
    0: "Produce", 1: "Fetch", 2: "ListOffsets", 3: "Metadata", 4: "LeaderAndIsr",
    5: "StopReplica", 6: "UpdateMetadata", 7: "ControlledShutdown", 8: "OffsetCommit",
    9: "OffsetFetch", 10: "FindCoordinator", 11: "JoinGroup", 12: "Heartbeat",
    13: "LeaveGroup", 14: "SyncGroup", 15: "DescribeGroups", 16: "ListGroups",
    17: "SaslHandshake", 18: "ApiVersions", 19: "CreateTopics", 20: "DeleteTopics",
    21: "DeleteRecords", 22: "InitProducerId", 23: "OffsetForLeaderEpoch",
    24: "AddPartitionsToTxn", 25: "AddOffsetsToTxn", 26: "EndTxn", 27: "WriteTxnMarkers",
    28: "TxnOffsetCommit", 29: "DescribeAcls", 30: "CreateAcls", 31: "DeleteAcls",
    32: "DescribeConfigs", 33: "AlterConfigs", 34: "AlterReplicaLogDirs",
    35: "DescribeLogDirs", 36: "SaslAuthenticate", 37: "CreatePartitions",
    42: "DeleteGroups", 47: "OffsetDelete", 60: "DescribeCluster",
    68: "ConsumerGroupHeartbeat", 71: "GetTelemetrySubscriptions", 72: "PushTelemetry",
}
METADATA, FIND_COORDINATOR = 3, 10
MAX_FRAME = 64 * 1024 * 1024


def api_name(key):
    return API_NAMES.get(key, f"Api{key}")


class Recorder:
    """Names and writes request frames; shared by all connections."""

    def __init__(self, out_dir, client, keep_all):
        self.out_dir = out_dir
        self.client = client
        self.keep_all = keep_all
        self.lock = threading.Lock()
        self.seen = set()
        self.count = 0

    def record(self, frame):
        api_key, api_version, corr = struct.unpack_from(">hhi", frame, 4)
        with self.lock:
            if not self.keep_all and (api_key, api_version) in self.seen:
                return
            self.seen.add((api_key, api_version))
            self.count += 1
            name = f"{self.client}-{self.count:02d}-{api_name(api_key)}-v{api_version}.bin"
            with open(os.path.join(self.out_dir, name), "wb") as f:
                f.write(frame)
        print(f"recorded {name} ({len(frame)} bytes, correlation id {corr})", file=sys.stderr, flush=True)


def take_frames(buf):
    """Splits complete size-prefixed frames off the front of buf."""
    frames = []
    while len(buf) >= 4:
        (size,) = struct.unpack_from(">i", buf, 0)
        if size < 0 or size > MAX_FRAME:
            raise ValueError(f"bad frame size {size}")
        if len(buf) < 4 + size:
            break
        frames.append(bytes(buf[: 4 + size]))
        del buf[: 4 + size]
    return frames


class Connection:
    def __init__(self, client_sock, args, recorder, listen_port):
        self.client = client_sock
        self.args = args
        self.recorder = recorder
        self.pending = {}  # correlation id -> api key, to find responses to rewrite
        self.lock = threading.Lock()
        host, port = args.upstream.rsplit(":", 1)
        self.upstream = socket.create_connection((host, int(port)), timeout=10)
        self.upstream.settimeout(None)
        self.old_addr = host.encode() + struct.pack(">i", int(port))
        self.new_addr = host.encode() + struct.pack(">i", listen_port)

    def pump(self, src, dst, on_frame):
        buf = bytearray()
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                buf += data
                for frame in take_frames(buf):
                    dst.sendall(on_frame(frame))
        except (OSError, ValueError) as e:
            print(f"connection closed: {e}", file=sys.stderr, flush=True)
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def on_request(self, frame):
        if len(frame) >= 12:
            api_key, _, corr = struct.unpack_from(">hhi", frame, 4)
            with self.lock:
                self.pending[corr] = api_key
            self.recorder.record(frame)
        return frame

    def on_response(self, frame):
        if len(frame) < 8:
            return frame
        (corr,) = struct.unpack_from(">i", frame, 4)
        with self.lock:
            api_key = self.pending.pop(corr, None)
        if api_key in (METADATA, FIND_COORDINATOR):
            return frame.replace(self.old_addr, self.new_addr)
        return frame

    def run(self):
        up = threading.Thread(target=self.pump, args=(self.client, self.upstream, self.on_request), daemon=True)
        down = threading.Thread(target=self.pump, args=(self.upstream, self.client, self.on_response), daemon=True)
        up.start()
        down.start()
        up.join()
        down.join()
        self.client.close()
        self.upstream.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--upstream", required=True, help="host:port of the broker")
    parser.add_argument("--out", required=True, help="directory for the .bin files")
    parser.add_argument("--client", required=True, help="file name prefix, e.g. librdkafka")
    parser.add_argument("--listen-port", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before the proxy exits")
    parser.add_argument("--all", action="store_true", help="write every request, not only the first per api/version")
    args = parser.parse_args()

    os.makedirs(args.out, exist_ok=True)
    recorder = Recorder(args.out, args.client, args.all)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", args.listen_port))
    listener.listen(16)
    port = listener.getsockname()[1]
    print(f"LISTEN 127.0.0.1:{port}", flush=True)

    deadline = time.monotonic() + args.timeout
    watch = [listener, sys.stdin]
    while time.monotonic() < deadline:
        ready, _, _ = select.select(watch, [], [], min(0.5, max(0.0, deadline - time.monotonic())))
        if sys.stdin in ready and not os.read(sys.stdin.fileno(), 4096):
            break  # stdin closed: the driver is done
        if listener in ready:
            sock, _ = listener.accept()
            conn = Connection(sock, args, recorder, port)
            threading.Thread(target=conn.run, daemon=True).start()
    listener.close()
    print(f"proxy done: {recorder.count} frames written", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
