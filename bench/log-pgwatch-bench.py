#!/usr/bin/env python3
"""pgharvest's log insights and pgwatch's server_log_event_counts on the same flooded log (issue 49).

One PostgreSQL cluster (Debian's binaries) writes csvlog to one file; both collectors run at once,
as `nobody` (so neither can read the log directory and both read remotely, pgwatch through
pg_read_file, pgharvest through pg_read_binary_file), against the same source, the log metrics every
2 s. A writer floods the log (1 KB RAISE LOG lines, one ERROR a second as a marker) at an even pace.
Measured: each collector's CPU and its backends' CPU (from /proc: the cluster runs here) from the
flood's start until both have been idle for 10 s, per MB of log written, and what each counted.

Needs root, Debian's PostgreSQL, the pgharvest fat jar (./mvnw -B package -DskipTests) and a pgwatch
binary (docs in /work/shared/pgwatch-build.md); pgwatch's metrics.yaml is copied to a temp dir only.

  bench/log-pgwatch-bench.py --pgwatch PATH --pgwatch-metrics PATH/metrics.yaml --jar target/pgharvest.jar
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import (CLK_TCK, TOKEN, Cluster, find_java, free_port, load_average, log, proc_stat)  # noqa: E402

LOG_METRICS = ["log_autovacuum", "log_checkpoints", "log_lock_waits", "log_deadlocks", "log_temp_files",
               "log_errors", "log_connection_failures", "log_slow_statements", "log_plans"]
RAISE = ("do $$ begin for i in 1..256 loop raise log 'flood %', repeat(md5(i::text), 32); end loop; end $$;\n")
MARKER = "select 1 / 0;\n"


def cpu(pid):
    stat = proc_stat(pid)
    return 0 if stat is None else stat[1]


def child_of(pid):
    """The process runuser started (runuser stays its parent)."""
    for _ in range(100):
        for entry in os.listdir("/proc"):
            if entry.isdigit() and (proc_stat(int(entry)) or (None,))[0] == pid:
                return int(entry)
        time.sleep(0.1)
    raise RuntimeError(f"no child of {pid}")


def backends(cluster, application):
    out = cluster.sql(f"select coalesce(string_agg(pid::text, ','), '') from pg_stat_activity"
                      f" where application_name ilike '{application}%'")
    return [int(p) for p in out.split(",") if p]


class BackendCpu:
    """The CPU of every backend an application ever had (they may reconnect), summed."""

    def __init__(self, cluster, application):
        self.cluster, self.application, self.last = cluster, application, {}

    def sample(self):
        for pid in backends(self.cluster, self.application):
            self.last[pid] = cpu(pid) or self.last.get(pid, 0)
        return sum(self.last.values())


def start_pgwatch(args, work, url):
    sources = work / "sources.yaml"
    sources.write_text(f"- name: flood\n  conn_str: {url}\n  kind: postgres\n  is_enabled: true\n"
                       f"  custom_metrics:\n    server_log_event_counts: 2\n")
    metrics = work / "metrics.yaml"
    shutil.copy(args.pgwatch_metrics, metrics)
    out = work / "pgwatch.jsonl"
    cmd = ["runuser", "-u", "nobody", "--", args.pgwatch, f"--sources={sources}", f"--metrics={metrics}",
           f"--sink=jsonfile://{out}", "--web-disable=all"]
    return subprocess.Popen(cmd, cwd=work, stdout=open(work / "pgwatch.log", "w"), stderr=subprocess.STDOUT), out


def start_pgharvest(args, work, url):
    port = free_port()
    cmd = ["runuser", "-u", "nobody", "--", args.java, "-Xmx512m", "-jar", args.jar, f"--server.port={port}",
           "--server.address=127.0.0.1", f"--pgharvest.data-dir={work / 'data'}", f"--pgharvest.api.token={TOKEN}",
           "--pgharvest.security.allow-superuser-sources=true", "--spring.main.banner-mode=off",
           "--pgharvest.sinks[0].type=jsonfile", f"--pgharvest.sinks[0].path={work / 'pgharvest.jsonl'}"]
    popen = subprocess.Popen(cmd, cwd=work, stdout=open(work / "pgharvest.log", "w"), stderr=subprocess.STDOUT)
    for _ in range(360):
        if popen.poll() is not None:
            raise RuntimeError("pgharvest exited; see " + str(work / "pgharvest.log"))
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/actuator/health/readiness", timeout=2):
                break
        except OSError:
            time.sleep(0.5)
    body = json.dumps({"name": "flood", "connStr": url, "metrics": {**{m: 2 for m in LOG_METRICS}}}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/sources", data=body, method="POST",
                                 headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=10).read()
    return popen, port


def pgharvest_markers(port):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/sources/flood/log-events?category=errors&limit=1000",
                                 headers={"Authorization": f"Bearer {TOKEN}"})
    events = json.loads(urllib.request.urlopen(req, timeout=10).read())["events"]
    return sum(e["values"].get("count", 1) for e in events if e["values"].get("sqlstate") == "22012")


def pgwatch_counts(out):
    log_lines = errors = 0
    for path in out.parent.glob(out.name + "*"):
        for line in path.read_text(errors="replace").splitlines():
            if "server_log_event_counts" not in line:
                continue
            for row in json.loads(line).get("data", []):
                log_lines += row.get("log_total", 0)
                errors += row.get("error_total", 0)
    return log_lines, errors


def flood(cluster, megabytes, seconds, log_file):
    writer = subprocess.Popen(["psql", "-X", "-q", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres",
                               "-d", "postgres"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, text=True)
    base = log_file.stat().st_size
    started, markers, second = time.time(), 0, -1
    while log_file.stat().st_size - base < megabytes * 1_000_000:
        elapsed = time.time() - started
        if int(elapsed) > second:
            second = int(elapsed)
            writer.stdin.write(MARKER)
            markers += 1
        if log_file.stat().st_size - base < megabytes * 1_000_000 * min(1, elapsed / seconds):
            writer.stdin.write(RAISE * 4)
            writer.stdin.flush()
        else:
            time.sleep(0.02)
    writer.stdin.close()
    writer.wait()
    return markers, log_file.stat().st_size - base, time.time() - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pgwatch", required=True)
    parser.add_argument("--pgwatch-metrics", required=True)
    parser.add_argument("--jar", required=True)
    parser.add_argument("--java", default=find_java())
    parser.add_argument("--bin", default="/usr/lib/postgresql/15/bin")
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=60)
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="log-pgwatch-"))
    os.chmod(root, 0o755)
    work = root / "work"
    work.mkdir()
    shutil.chown(work, "nobody", "nogroup")
    cluster = Cluster("logs", args.bin, root, {"logging_collector": "on", "log_destination": "'csvlog'",
                                                "log_filename": "'flood.log'", "log_rotation_age": "0",
                                                "log_rotation_size": "0", "lc_messages": "'C'"})
    log_file = cluster.data / "log" / "flood.csv"
    url = cluster.url("postgres")
    pgwatch, pgwatch_out = start_pgwatch(args, work, url)
    pgharvest, port = start_pgharvest(args, work, url)
    try:
        time.sleep(15)  # both have read the end of the log once
        watch_pid, harvest_pid = child_of(pgwatch.pid), child_of(pgharvest.pid)
        watch_be, harvest_be = BackendCpu(cluster, "pgwatch"), BackendCpu(cluster, "pgharvest")
        before = {"pgwatch": cpu(watch_pid), "pgharvest": cpu(harvest_pid),
                  "pgwatch_be": watch_be.sample(), "pgharvest_be": harvest_be.sample()}
        load = load_average()
        markers, written, took = flood(cluster, args.mb, args.seconds, log_file)
        log(f"flood: {written / 1e6:.1f} MB in {took:.0f} s, {markers} markers")
        idle, last = 0, None
        for _ in range(150):
            time.sleep(2)
            now = (cpu(watch_pid), cpu(harvest_pid), watch_be.sample(), harvest_be.sample())
            idle = idle + 1 if last is not None and all(n - l <= 2 for n, l in zip(now, last)) else 0
            last = now
            if idle >= 5:
                break
        after = dict(zip(["pgwatch", "pgharvest", "pgwatch_be", "pgharvest_be"], last))
        mb = written / 1e6
        for side in ("pgwatch", "pgharvest"):
            collector = (after[side] - before[side]) / CLK_TCK
            backend = (after[side + "_be"] - before[side + "_be"]) / CLK_TCK
            print(f"{side}: collector {collector:.2f} s CPU ({collector * 1000 / mb:.1f} ms/MB),"
                  f" its backends {backend:.2f} s CPU ({backend * 1000 / mb:.1f} ms/MB)")
        print(f"pgwatch counted log_total+error_total {pgwatch_counts(pgwatch_out)}, pgharvest counted markers"
              f" {pgharvest_markers(port)} of {markers}; {mb:.1f} MB written in {took:.0f} s; load {load}")
    finally:
        for p in (pgwatch, pgharvest):
            p.terminate()
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
        cluster.stop()


if __name__ == "__main__":
    main()
