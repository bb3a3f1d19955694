#!/usr/bin/env python3
"""Dev-time tool: capture the `records` bytes a real client (librdkafka via
kcat) sends in Produce, for golden vectors (protocol/test/records_librdkafka_golden_test.cc).

A minimal fake broker on 127.0.0.1 answers ApiVersions, Metadata v0 and
Produce v0-v7 and prints each Produce `records` field as hex. The advertised
versions pick librdkafka's message format:
  magic 2: --produce 7 --fetch 10   magic 1: --produce 2 --fetch 2   magic 0: --produce 1
FindCoordinator v0 is advertised because librdkafka only enables lz4 then.

  capture_produce.py --port 19500 --produce 7 --fetch 10 --codec lz4
"""
import argparse
import socket
import struct
import subprocess
import threading

TOPIC = b'golden'


def read_str(buf, pos):
    n = struct.unpack_from('>h', buf, pos)[0]
    pos += 2
    return (None if n < 0 else buf[pos:pos + n].decode()), pos + max(n, 0)


def api_versions(ver, produce_max, fetch_max):
    apis = [(0, 0, produce_max), (3, 0, 0), (10, 0, 0), (18, 0, 3)]
    if fetch_max >= 0:
        apis.append((1, 0, fetch_max))
    if ver >= 3:  # flexible: compact array, tagged fields
        body = struct.pack('>h', 0) + bytes([len(apis) + 1])
        body += b''.join(struct.pack('>hhh', *a) + b'\x00' for a in apis)
        return body + struct.pack('>i', 0) + b'\x00'
    body = struct.pack('>hi', 0, len(apis)) + b''.join(struct.pack('>hhh', *a) for a in apis)
    return body + (struct.pack('>i', 0) if ver >= 1 else b'')


def metadata_v0(port):
    body = struct.pack('>i', 1) + struct.pack('>ih', 1, 9) + b'127.0.0.1' + struct.pack('>i', port)
    body += struct.pack('>i', 1) + struct.pack('>hh', 0, len(TOPIC)) + TOPIC
    body += struct.pack('>i', 1) + struct.pack('>hiii', 0, 0, 1, 1) + struct.pack('>iii', 1, 1, 1)
    return body


def produce(ver, req, pos, captured):
    if ver >= 3:
        _, pos = read_str(req, pos)  # transactional id
    acks = struct.unpack_from('>h', req, pos)[0]
    pos += 6
    topics = struct.unpack_from('>i', req, pos)[0]
    pos += 4
    out = b''
    for _ in range(topics):
        name, pos = read_str(req, pos)
        parts = struct.unpack_from('>i', req, pos)[0]
        pos += 4
        body = b''
        for _ in range(parts):
            index, size = struct.unpack_from('>ii', req, pos)
            pos += 8
            captured.append((ver, req[pos:pos + size]))
            pos += size
            body += struct.pack('>ihq', index, 0, 0)
            body += struct.pack('>q', -1) if ver >= 2 else b''
            body += struct.pack('>q', 0) if ver >= 5 else b''
        out += struct.pack('>h', len(name)) + name.encode() + struct.pack('>i', parts) + body
    return acks, struct.pack('>i', topics) + out + (struct.pack('>i', 0) if ver >= 1 else b'')


def serve(conn, args, captured):
    with conn:
        while True:
            head = conn.recv(4, socket.MSG_WAITALL)
            if len(head) < 4:
                return
            req = conn.recv(struct.unpack('>i', head)[0], socket.MSG_WAITALL)
            key, ver, corr = struct.unpack_from('>hhi', req, 0)
            _, pos = read_str(req, 8)
            if key == 18:
                body = api_versions(ver, args.produce, args.fetch)
            elif key == 3:
                body = metadata_v0(args.port)
            elif key == 0:
                acks, body = produce(ver, req, pos, captured)
                if acks == 0:
                    continue
            else:
                return
            resp = struct.pack('>i', corr) + body
            conn.sendall(struct.pack('>i', len(resp)) + resp)


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--port', type=int, default=19500)
    p.add_argument('--produce', type=int, default=7)
    p.add_argument('--fetch', type=int, default=10, help='-1: do not advertise Fetch')
    p.add_argument('--codec', default='none')
    args = p.parse_args()

    listener = socket.create_server(('127.0.0.1', args.port))
    listener.settimeout(20)
    captured = []

    def accept_loop():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn, args, captured), daemon=True).start()

    threading.Thread(target=accept_loop, daemon=True).start()
    lines = 'k1:hello %s %s\n:null-key value\nk3:third record\n' % (args.codec, 'abcd' * 25)
    subprocess.run(['kcat', '-P', '-b', '127.0.0.1:%d' % args.port, '-t', TOPIC.decode(), '-p', '0',
                    '-z', args.codec, '-K:', '-H', 'trace=abc', '-X', 'linger.ms=200'],
                   input=lines.encode(), check=True, timeout=20)
    listener.close()
    for ver, records in captured:
        print('produce v%d: %s' % (ver, records.hex()))


if __name__ == '__main__':
    main()
