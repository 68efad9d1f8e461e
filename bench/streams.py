"""Stream figures with a scripted fast pipeline: emit-to-receipt latency and concurrent streams.

    .venv/bin/python bench/streams.py [--levels 50,100,200,400] [--events 20]

It ends with the machine's saturation point: the first level whose p95 passes 100 ms.

One web process (uvicorn) serves GET /api/runs/<id>/events. This process plays the pipeline: it
appends events to runs' logs (insert + NOTIFY, the production emit path) at a fixed pace, each
carrying its emit time. Clients (asyncio + httpx, in a separate process) read every stream and
record receipt times. A level passes when every stream received every event, in order.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

from _setup import ROOT, bench_user, setup

CLIENT = r"""
import asyncio, json, sys, time
import httpx

async def read(client, url, headers, out):
    received = []
    async with client.stream("GET", url, headers=headers, timeout=None) as response:
        if response.status_code != 200:
            print("status", response.status_code, await response.aread(), file=sys.stderr)
        last_id = None
        async for line in response.aiter_lines():
            if line.startswith("id: "):
                last_id = line[4:]
            if line.startswith("data: "):
                frame = json.loads(line[6:])
                frame["_id"] = last_id
                received.append((time.time(), frame))
                if frame["type"] == "stream_end":
                    break
    out.append(received)

async def main():
    base, token, run_ids = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    headers = {"Authorization": "Token " + token}
    out = []
    limits = httpx.Limits(max_connections=len(run_ids) + 10)
    async with httpx.AsyncClient(limits=limits, timeout=None) as client:
        tasks = [read(client, f"{base}/api/runs/{rid}/events", headers, out) for rid in run_ids]
        print("ready", flush=True)
        await asyncio.gather(*tasks)
    print(json.dumps(out))

asyncio.run(main())
"""


SATURATION_MS = 100


def latencies_ok(streams) -> bool:
    return any(frame["type"] == "stage_start" for stream in streams for _, frame in stream)


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--levels", default="25,50,100,200,400")
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--interval", type=float, default=0.05)
    args = parser.parse_args()
    os.environ.setdefault("STREAM_HEARTBEAT_SECONDS", "15")
    setup()
    from django.db import connection
    from rest_framework.authtoken.models import Token

    from queries.eventlog import run_event_append
    from queries.models import QueryRun

    user = bench_user()
    token, _ = Token.objects.get_or_create(user=user)
    QueryRun.objects.filter(user=user, query__startswith="bench-stream").delete()
    env = dict(
        os.environ,
        ADRAG_DB_NAME=connection.settings_dict["NAME"],
        RUNS_MAX_CONCURRENT_PER_USER="100000",
    )
    port = 8765
    from adrag_site.server import uvicorn_command

    web = subprocess.Popen(
        uvicorn_command(sys.executable, "127.0.0.1", port),
        cwd=ROOT,
        env=env,
        stdout=open("/tmp/bench-streams-web.log", "wb"),
        stderr=subprocess.STDOUT,
    )
    import requests

    base = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            requests.get(base + "/api/health", timeout=1)
            break
        except requests.RequestException:
            time.sleep(0.2)
    print(f"one web process; {args.events} events per run, one every {args.interval * 1000:.0f} ms")
    print(
        f"{'streams':>8}{'events sent':>13}{'received':>10}{'lost':>6}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}"
    )
    # The machine's saturation point: the first level whose p95 passes SATURATION_MS. A
    # regression shows as a lower number.
    passed_at: int | None = None
    last_under = 0
    try:
        for level in [int(x) for x in args.levels.split(",")]:
            runs = [
                QueryRun.objects.create(
                    user=user,
                    query=f"bench-stream {level} {i}",
                    provider="extractive",
                    status="running",
                )
                for i in range(level)
            ]
            client = subprocess.Popen(
                [sys.executable, "-c", CLIENT, base, token.key, ",".join(str(r.id) for r in runs)],
                stdout=subprocess.PIPE,
                text=True,
            )
            assert client.stdout.readline().strip() == "ready"
            time.sleep(1.0 + level / 200)  # let every client connect before the first event

            def produce(runs=runs):
                for n in range(args.events):
                    for run in runs:
                        run_event_append(
                            run_id=run.id,
                            event_type="stage_start",
                            data={"stage": "planner", "message": str(time.time()), "n": n},
                        )
                    time.sleep(args.interval)
                for run in runs:
                    run_event_append(run_id=run.id, event_type="stream_end", data=None)

            producer = threading.Thread(target=produce)
            producer.start()
            output, _ = client.communicate(timeout=600)
            producer.join()
            streams = json.loads(output.strip().splitlines()[-1])
            for stream in streams:
                ids = [f["_id"] for _, f in stream]
                if len(ids) != len(set(ids)):
                    print("duplicate ids:", ids)
                    break
            if not latencies_ok(streams):
                raise SystemExit(f"level {level}: first stream: {streams[0][:3]}")
            if not any(streams):
                raise SystemExit(f"level {level}: no stream received anything: {output[:500]}")
            expected = level * (args.events + 1)
            received = sum(len(s) for s in streams)
            latencies = [
                (at - float(frame["data"]["message"])) * 1000
                for stream in streams
                for at, frame in stream
                if frame["type"] == "stage_start"
            ]
            ordered = all(
                [f["data"]["n"] for _, f in s if f["type"] == "stage_start"]
                == list(range(args.events))
                for s in streams
            )
            lost = expected - received + (0 if ordered else 1)
            print(
                f"{level:>8}{expected:>13}{received:>10}{lost:>6}{statistics.median(latencies):>9.1f}"
                f"{percentile(latencies, 95):>9.1f}{max(latencies):>9.1f}"
            )
            QueryRun.objects.filter(id__in=[r.id for r in runs]).delete()
            if percentile(latencies, 95) > SATURATION_MS:
                passed_at = passed_at or level
            elif passed_at is None:
                last_under = level
        if passed_at is None:
            print(f"saturation: p95 stayed under {SATURATION_MS} ms up to {last_under} streams")
        else:
            print(
                f"saturation: p95 passes {SATURATION_MS} ms at {passed_at} streams "
                f"(under it at {last_under})"
            )
    finally:
        web.terminate()
        web.wait(10)


if __name__ == "__main__":
    main()
