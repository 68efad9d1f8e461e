"""What a huge request body costs the web process: its memory, and how fast it still answers.

    .venv/bin/python bench/body_limits.py [--gigabytes 2]

Starts one web process (as `make run` does), then sends a body of `--gigabytes` GB three
ways: declared with Content-Length to an API path, chunked without a length to the login
page (multipart), and declared to the upload path. Meanwhile another thread asks
/api/health every 100 ms. Prints the web process's RSS growth (peak minus start), the
slowest and median health answer, the status the big request got and how many bytes went
out before the server stopped reading.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import threading
import time

import psutil
import requests
from _setup import ROOT, setup


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def send(port: int, head: bytes, total: int, chunked: bool) -> tuple[str, int]:
    sent = 0
    piece = b"a" * (1 << 20)
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head)
        try:
            while sent < total:
                block = b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece
                sock.sendall(block)
                sent += len(piece)
            if chunked:
                sock.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        try:
            reply = sock.recv(200).split(b"\r\n", 1)[0].decode()
        except (ConnectionResetError, TimeoutError):
            reply = "(connection closed)"
    return reply, sent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gigabytes", type=float, default=2.0)
    args = parser.parse_args()
    setup()
    import os

    from adrag_site.server import uvicorn_command

    port = free_port()
    web = subprocess.Popen(
        uvicorn_command(sys.executable, "127.0.0.1", port),
        cwd=ROOT,
        env={**os.environ, "ADRAG_DB_NAME": "adrag_bench"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            requests.get(base + "/api/health", timeout=1)
            break
        except requests.RequestException:
            time.sleep(0.1)
    total = int(args.gigabytes * (1 << 30))
    cases = [
        ("declared, API", b"POST /api/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % total, False),
        ("chunked, login form", b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\nTransfer-Encoding: chunked\r\n\r\n", True),
        ("declared, upload", b"POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: %d\r\n\r\n" % total, False),
    ]  # fmt: skip
    process = psutil.Process(web.pid)
    print(f"one web process; a body of {args.gigabytes:g} GB each time")
    print(
        f"{'body':<22}{'answer':<34}{'sent MB':>9}{'RSS +MB':>9}{'health max ms':>15}{'median':>8}"
    )
    try:
        for label, head, chunked in cases:
            start_rss = process.memory_info().rss
            peak = start_rss
            latencies: list[float] = []
            done = threading.Event()

            def probe(done=done, latencies=latencies) -> None:
                nonlocal peak
                while not done.is_set():
                    started = time.perf_counter()
                    requests.get(base + "/api/health", timeout=30)
                    latencies.append(time.perf_counter() - started)
                    peak = max(peak, process.memory_info().rss)
                    time.sleep(0.1)

            prober = threading.Thread(target=probe)
            prober.start()
            reply, sent = send(port, head, total, chunked)
            time.sleep(0.5)
            done.set()
            prober.join()
            print(
                f"{label:<22}{reply:<34}{sent / (1 << 20):>9.0f}{(peak - start_rss) / (1 << 20):>9.1f}"
                f"{max(latencies) * 1000:>15.0f}{statistics.median(latencies) * 1000:>8.0f}"
            )
    finally:
        web.terminate()
        web.wait(10)


if __name__ == "__main__":
    main()
