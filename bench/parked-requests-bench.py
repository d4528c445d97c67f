#!/usr/bin/env python3
"""Heap per parked blocking query and time to recover from a long-poll flood (issue 38).

Each scenario starts a real pgharvest (target/app/pgharvest.jar with config/jvm.options) on a
fresh data directory, five sources collecting a one-row metric every second into a JSON lines
sink, and then sends ATTEMPTS long-polls `GET /api/v1/status?index=<current>&wait=5m` from eight
client addresses (127.0.0.2-9, round robin; the status index does not move while the sources
collect steadily, so an accepted long-poll stays parked for 5 minutes). Scenarios (--scenarios):

  cap:0       no long-poll: the baseline
  cap:500     500 long-polls, all within the caps (8 x 62-63 < 64 per client): all parked
  cap:10000   10,000 attempts: 512 parked (max-waiting), 9,488 answered 429 at once
  nocap:N     the caps raised to 100,000 and Tomcat's max-connections to 20,000, as before the
              caps existed: every attempt parks (what ran the heap out before, issue 38)

Readings per scenario: the live heap (`jcmd <pid> GC.class_histogram`, which collects fully
first) before the flood, with the requests parked and after the clients left; bytes per parked
request = (parked - before) / parked; the classes that grew most; the slowest plain GET
/api/v1/status (127.0.0.1, no index) during the flood; the time from the flood's last attempt
until a plain status answers, and from the clients leaving until a new long-poll is accepted
again (the cap's places given back) and until the heap is back within 8 MB of before; whether
the process survived; and lost measurements: per source the rows in the JSON file from the
flood's start to the end and the largest gap between two of them (1 s each tick), and the
sink's `dropped`.

Not a timing benchmark except the coarse times to recover (the load average is printed). Run it
through `heavy` on the shared machine, as root (PostgreSQL runs as `postgres`):

  ./mvnw -B -o -Daot.skip=true -DskipTests package        # target/app/pgharvest.jar
  heavy python3 bench/parked-requests-bench.py [--scenarios cap:0,cap:500,cap:10000,nocap:2000]

Output: target/parked-requests-bench/<UTC time>/{results.jsonl,<scenario>/pgharvest.log}; a
summary table on stdout.
"""

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import (TOKEN, Cluster, find_java, launch_pgharvest, load_average, log,  # noqa: E402
                      pgharvest_get, set_tag)

SOURCES = 5
CLIENT_ADDRESSES = [f"127.0.0.{i}" for i in range(2, 10)]
METRIC = "parked_ping"
MONITOR = "parked_monitor"


def api(collector, method, path, body=None, timeout=10):
    req = urllib.request.Request(f"http://127.0.0.1:{collector.port}{path}", method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, dict(r.headers), r.read().decode()


def live_heap(java, pid):
    """(live bytes, {class: bytes}) after a full collection; None when the process is gone."""
    jcmd = str(Path(java).parent / "jcmd")
    out = subprocess.run([jcmd, str(pid), "GC.class_histogram"], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        return None
    classes, total = {}, None
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0] == "Total":
            total = int(parts[2])
        elif len(parts) >= 4 and parts[0].endswith(":"):
            classes[parts[3]] = classes.get(parts[3], 0) + int(parts[2])
    return (total, classes) if total is not None else None


def grown_classes(before, after, top=6):
    grown = sorted(((after.get(c, 0) - before.get(c, 0), c) for c in after), reverse=True)[:top]
    return [f"{c} +{d // 1024} KB" for d, c in grown if d > 0]


class Attempt:
    """One long-poll: its connection stays open until answered or until the clients leave."""

    def __init__(self):
        self.status = None
        self.writer = None
        self.error = None


async def send_attempt(port, address, path, attempt, sem):
    async with sem:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
        except OSError as e:
            attempt.error = str(e)
            return
        attempt.writer = writer
        writer.write((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
                      "Connection: close\r\n\r\n").encode())
        try:
            await writer.drain()
        except OSError as e:
            attempt.error = str(e)
            return
        first = asyncio.ensure_future(reader.readline())
        # Within the semaphore only until answered or clearly waiting: 429s come at once.
        await asyncio.wait({first}, timeout=2.0)
    try:
        line = await first
    except (OSError, asyncio.CancelledError) as e:
        attempt.error = str(e) or type(e).__name__
        return
    m = re.match(rb"HTTP/1\.1 (\d{3})", line)
    if m:
        attempt.status = int(m.group(1))
    else:
        attempt.error = "closed without an answer"
    writer.close()


def probe_loop(collector, stop, slowest):
    """Plain status requests (no index) every 250 ms on their own connections while the flood runs."""
    while not stop.is_set():
        started = time.monotonic()
        try:
            status, _, _ = api(collector, "GET", "/api/v1/status", timeout=120)
            took = time.monotonic() - started
            slowest["ms"] = max(slowest["ms"], round(took * 1000))
            slowest["answers"] += 1
            if status != 200:
                slowest["not_ok"] += 1
        except (OSError, urllib.error.URLError):
            slowest["failed"] += 1
        stop.wait(0.25)


def time_until(check, ceiling=300, step=0.05):
    """Seconds until check() is true (polled every `step` s), or None past the ceiling."""
    started = time.monotonic()
    while time.monotonic() - started < ceiling:
        try:
            if check():
                return round(time.monotonic() - started, 3)
        except (OSError, urllib.error.URLError):
            pass
        time.sleep(step)
    return None


def plain_status_answers(collector):
    return api(collector, "GET", "/api/v1/status", timeout=60)[0] == 200


def long_poll_accepted(collector, index):
    """A new long-poll from a flood address is accepted (it waits its 1 s out: 200), not refused (429)."""
    req = urllib.request.Request(f"http://127.0.0.1:{collector.port}/api/v1/status?index={index}&wait=1s",
                                 headers={"Authorization": f"Bearer {TOKEN}"})
    opener = urllib.request.build_opener(SourceAddressHandler(CLIENT_ADDRESSES[0]))
    try:
        with opener.open(req, timeout=60) as r:
            return r.status == 200
    except urllib.error.HTTPError as e:
        if e.code == 429:
            return False
        raise


class SourceAddressHandler(urllib.request.HTTPHandler):
    def __init__(self, address):
        super().__init__()
        self.address = address

    def http_open(self, req):
        import http.client
        return self.do_open(lambda host, **kw: http.client.HTTPConnection(host, source_address=(self.address, 0), **kw),
                            req)


def collection_times(json_file, since=0, until=1e12):
    """{source: sorted collection times of the ping metric} within [since, until) (epoch seconds)."""
    seen = {}
    with open(json_file) as f:
        for line in f:
            m = json.loads(line)
            if m.get("metric") != METRIC:
                continue
            t = datetime.fromisoformat(m["time"].replace("Z", "+00:00")).timestamp()
            if since <= t < until:
                seen.setdefault(m["source"], []).append(t)
    return {source: sorted(times) for source, times in seen.items()}


def largest_gap(times):
    """The longest time between two rows of a source: about 1 s while every tick is delivered,
    2 s or more where one is missing (a tick's row carries the tick's start, which wanders by a
    fraction of a second under load)."""
    return round(max((b - a for a, b in zip(times, times[1:])), default=0), 2)


def run_scenario(args, cluster, out_dir, mode, attempts_n):
    name = f"{mode}-{attempts_n}"
    work = out_dir / name
    work.mkdir()
    json_file = work / "out.jsonl"
    extra = [f"--pgharvest.sinks[0].type=jsonfile", f"--pgharvest.sinks[0].path={json_file}"]
    if mode == "nocap":
        extra += ["--pgharvest.api.blocking.max-waiting=100000", "--pgharvest.api.blocking.max-waiting-per-client=100000",
                  "--server.tomcat.max-connections=20000", "--server.tomcat.accept-count=4096"]
    result = {"scenario": name, "attempts": attempts_n, "load_start": load_average()}
    log(f"{name}: starting pgharvest (load {result['load_start']})")
    collector = launch_pgharvest(args.java, args.jvm_options, args.jar, None, work, extra)
    try:
        status, _, _ = api(collector, "POST", "/api/v1/metrics", {
            "name": METRIC, "sqls": {"14": "select 1 as ping"}, "gauges": ["*"]})
        assert status == 201, status
        for i in range(1, SOURCES + 1):
            status, _, _ = api(collector, "POST", "/api/v1/sources", {
                "name": f"parked-{i}", "connStr": f"postgresql://{MONITOR}@127.0.0.1:{cluster.port}/parked_db_{i}", "metrics": {METRIC: 1}})
            assert status == 201, status
        deadline = time.time() + 120
        while time.time() < deadline and (not json_file.exists() or len(collection_times(json_file)) < SOURCES):
            collector.require_alive()
            time.sleep(1)
        if not json_file.exists() or len(collection_times(json_file)) < SOURCES:
            raise RuntimeError(f"the {SOURCES} sources did not all collect within 120 s; see {work / 'pgharvest.log'}")
        time.sleep(args.warmup)
        _, headers, _ = api(collector, "GET", "/api/v1/status")
        index = headers.get("X-Pgharvest-Index")
        before = live_heap(args.java, collector.pid)
        result["heap_before_kb"] = before[0] // 1024

        flood_start = time.time()
        stop, slowest = threading.Event(), {"ms": 0, "answers": 0, "failed": 0, "not_ok": 0}
        prober = threading.Thread(target=probe_loop, args=(collector, stop, slowest), daemon=True)
        prober.start()
        path = f"/api/v1/status?index={index}&wait={args.wait}"
        attempts = [Attempt() for _ in range(attempts_n)]

        async def flood():
            sem = asyncio.Semaphore(args.concurrency)
            tasks = [asyncio.ensure_future(send_attempt(collector.port, CLIENT_ADDRESSES[i % len(CLIENT_ADDRESSES)],
                                                        path, a, sem)) for i, a in enumerate(attempts)]
            # The flood ends when every attempt was answered or is waiting (its 2 s look passed).
            while sum(1 for a in attempts if a.status is not None or a.error is not None
                      or a.writer is not None) < len(attempts) or sem.locked():
                await asyncio.sleep(0.1)
            while sem._value < args.concurrency:  # every attempt has left its first look
                await asyncio.sleep(0.1)
            flood_end = time.time()
            result["flood_seconds"] = round(flood_end - flood_start, 1)
            loop = asyncio.get_running_loop()
            if collector.popen.poll() is not None:  # e.g. out of heap: ExitOnOutOfMemoryError
                result["parked_when_it_ended"] = sum(1 for a in attempts if a.writer is not None and a.status is None)
                for a in attempts:
                    if a.writer is not None:
                        a.writer.transport.abort()
                await asyncio.gather(*tasks, return_exceptions=True)
                return time.time()
            result["status_after_flood_s"] = await loop.run_in_executor(
                None, time_until, lambda: plain_status_answers(collector))
            await asyncio.sleep(args.hold)
            waiting = [a for a in attempts if a.status is None and a.error is None and a.writer is not None]
            result["parked"] = len(waiting)
            result["refused_429"] = sum(1 for a in attempts if a.status == 429)
            result["answered_other"] = sum(1 for a in attempts if a.status not in (None, 429))
            result["connect_errors"] = sum(1 for a in attempts if a.error is not None and a.writer is None)
            parked = await loop.run_in_executor(None, live_heap, args.java, collector.pid)
            result["alive_while_parked"] = collector.popen.poll() is None
            if parked:
                result["heap_parked_kb"] = parked[0] // 1024
                if waiting:
                    result["bytes_per_parked"] = round((parked[0] - before[0]) / len(waiting))
                result["grown"] = grown_classes(before[1], parked[1])
            # The clients leave.
            for a in waiting:
                a.writer.transport.abort()
            left = time.time()
            await asyncio.gather(*tasks, return_exceptions=True)
            return left

        left = asyncio.run(flood())
        stop.set()
        prober.join(130)
        result["slowest_plain_status_ms"] = slowest["ms"]
        result["plain_status_answers"] = slowest["answers"]
        result["plain_status_failed"] = slowest["failed"] + slowest["not_ok"]
        result["alive"] = collector.popen.poll() is None
        if not result["alive"]:
            result["exit_code"] = collector.popen.returncode
            return result
        answered = time_until(lambda: plain_status_answers(collector))
        result["status_after_leave_s"] = None if answered is None else round(time.time() - left, 3)
        after = live_heap(args.java, collector.pid)
        result["heap_after_leave_kb"] = after[0] // 1024 if after else None
        # A parked request whose client left is noticed only when it is answered (its wait runs
        # out): until then it keeps its place under the caps and its memory.
        accepted = time_until(lambda: long_poll_accepted(collector, index), ceiling=args.recovery_ceiling, step=1)
        # Includes the accepted long-poll's own 1 s wait.
        result["long_poll_accepted_after_leave_s"] = None if accepted is None else round(time.time() - left, 3)
        released = time_until(lambda: live_heap(args.java, collector.pid)[0] < before[0] + 8 * 1024 * 1024,
                              ceiling=args.recovery_ceiling - (time.time() - left), step=15)
        result["heap_released_after_leave_s"] = None if released is None else round(time.time() - left, 1)
        result["heap_released_kb"] = live_heap(args.java, collector.pid)[0] // 1024
        until = time.time()
        time.sleep(5)  # the sink's batch delay: rows of the last ticks reach the file
        times = collection_times(json_file, flood_start, until)
        result["window_s"] = round(until - flood_start)
        result["rows"] = {f"parked-{i}": len(times.get(f"parked-{i}", [])) for i in range(1, SOURCES + 1)}
        result["largest_gap_s"] = max(largest_gap(times.get(f"parked-{i}", [])) for i in range(1, SOURCES + 1))
        sinks = json.loads(pgharvest_get(collector, "/api/v1/sinks"))
        result["sink_dropped"] = sinks[0].get("dropped")
        result["load_end"] = load_average()
        return result
    finally:
        collector.stop()


def main():
    repo = Path(__file__).resolve().parent.parent
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scenarios", default="cap:0,cap:500,cap:10000,nocap:2000,nocap:10000")
    p.add_argument("--jar", default=str(repo / "target" / "app" / "pgharvest.jar"))
    p.add_argument("--java", default=None, help="java 21+ with jcmd beside it (default: the newest in /usr/lib/jvm)")
    p.add_argument("--jvm-options", default=str(repo / "config" / "jvm.options"))
    p.add_argument("--pg-bin", default="/usr/lib/postgresql/15/bin")
    p.add_argument("--warmup", type=int, default=10, help="seconds of collection before the first heap reading")
    p.add_argument("--hold", type=int, default=5, help="seconds the requests stay parked before the heap reading")
    p.add_argument("--concurrency", type=int, default=200, help="attempts in flight before they are answered or wait")
    p.add_argument("--wait", default="5m", help="the long-polls' wait parameter")
    p.add_argument("--recovery-ceiling", type=int, default=420,
                   help="seconds after the clients left to wait for the places and the heap to come back")
    p.add_argument("--output", default=str(repo / "target" / "parked-requests-bench"))
    args = p.parse_args()
    set_tag("parked")
    args.java = args.java or find_java()
    args.jar, args.jvm_options = str(Path(args.jar).resolve()), str(Path(args.jvm_options).resolve())
    out_dir = Path(args.output) / datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out_dir.mkdir(parents=True)
    root = Path(tempfile.mkdtemp(prefix="parked-"))
    os.chmod(root, 0o755)
    cluster = Cluster("source", args.pg_bin, root, {"max_connections": "50"})
    results = []
    try:
        cluster.sql(f"create role {MONITOR} login; grant pg_monitor to {MONITOR}")
        for i in range(1, SOURCES + 1):
            cluster.sql(f"create database parked_db_{i}")
        for spec in args.scenarios.split(","):
            mode, n = spec.split(":")
            result = run_scenario(args, cluster, out_dir, mode, int(n))
            results.append(result)
            with open(out_dir / "results.jsonl", "a") as f:
                f.write(json.dumps(result) + "\n")
            log(json.dumps(result))
    finally:
        cluster.stop()
    print("\nscenario | attempts | parked | 429 | live heap before/parked/left/released (KB) | bytes per parked"
          " | slowest plain status (ms) | status after flood / after leave (s) | long-poll accepted after leave (s)"
          " | heap released after leave (s) | alive | window (s) / fewest rows / largest gap (s) | dropped"
          " | load start/end")
    for r in results:
        print(f"{r['scenario']} | {r['attempts']} | {r.get('parked')} | {r.get('refused_429')} | "
              f"{r.get('heap_before_kb')}/{r.get('heap_parked_kb')}/{r.get('heap_after_leave_kb')}/"
              f"{r.get('heap_released_kb')} | {r.get('bytes_per_parked')} | {r.get('slowest_plain_status_ms')} | "
              f"{r.get('status_after_flood_s')} / {r.get('status_after_leave_s')} | "
              f"{r.get('long_poll_accepted_after_leave_s')} | {r.get('heap_released_after_leave_s')} | "
              f"{r.get('alive')} {r.get('exit_code', '')} | {r.get('window_s')} / {min(r.get('rows', {0: None}).values())}"
              f" / {r.get('largest_gap_s')} | "
              f"{r.get('sink_dropped')} | {r.get('load_start')} / {r.get('load_end')}")
    print(f"results: {out_dir / 'results.jsonl'}")


if __name__ == "__main__":
    main()
