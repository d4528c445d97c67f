#!/usr/bin/env python3
"""Query insights and the recent window, measured (issues 36 and 37).

One monitored PostgreSQL cluster with pg_stat_statements in every database and a workload that runs
a fixed set of distinct statements in each database, one sink cluster, one collector at a time:

- `pair:N:K` - K pairs of runs at N databases, alternating who goes first: pgwatch collecting its
  own `stat_statements` + `stat_statements_calls` (pgwatch's metrics.yaml, read where it lies and
  copied to a temp file only) against pgharvest collecting its built-in `query_insights` preset,
  `stat_statements`/`stat_statements_calls`/`query_stats` every --interval seconds on both sides.
- `untracked:N:K` - the same pairs after `ALTER ROLE monitor SET pg_stat_statements.track = 'none'`.
- `alone:N:K` - K runs of pgharvest alone (its collector CPU before/after a change of its own; with
  --jfr-dir each run also records a JFR profile of the window, settings=profile: CPU samples and
  allocations; JFR and the AOT cache do not mix, so leave --aot-cache out and compare such runs
  only with each other).
- `none:N:K` - K runs with the workload and no collector (the cluster's own cost, and a check that
  what is left to the collector's sessions is near zero without one).
- `window:N:K` - pgharvest alone with its `standard` preset (query insights folded in,
  query_samples every 10 s as in `query_insights`), the recent window on (span --window-span) and
  off, alternating; the window's memory after --window-fill seconds.

Both collectors log in as `monitor`, a role with pg_monitor only. Every figure and the command
are in docs/performance.md, "Query insights against pgwatch's stat_statements" and "The recent
window's memory". Needs root (the clusters run as `postgres`), Debian's PostgreSQL binaries,
PyYAML, a JDK 21+ with jcmd, pgwatch v6 for the pairs and pgharvest's jar.

Writes <output>/runs.jsonl (one line per run, appended) and <output>/results.md.
"""

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from benchlib import (CLK_TCK, Cluster, Collector, find_java, launch_pgharvest, load_average, log, pgharvest_meters,
                      proc_stat, rss_kb, set_tag)

MONITOR = "monitor"
WORKLOAD_APP = "bench-workload"
BENCH_DBS = "datname like 'bench\\_%'"


def db_name(i):
    return f"bench_{i:04d}"


# ---------------------------------------------------------------------------------------------
# The workload: one psql per database, fed through its standard input

def statement(j):
    """The j-th of the distinct statements: j predicates more than the first, so each has its own
    query id (constants are normalized away, the shape is not)."""
    extra = "".join(f" and id <> {-k}" for k in range(j))
    return f"select count(*), max(payload) from bench_work where id between {j * 10} and {j * 10 + 50}{extra};\n"


class Workload:
    """Every database runs each of `statements` distinct statements once per `cycle` seconds, spread
    over the cycle, as the cluster's superuser (tracked by pg_stat_statements in every run)."""

    def __init__(self, cluster, n, statements, cycle):
        env = {**os.environ, "PGAPPNAME": WORKLOAD_APP}
        self.clients = [subprocess.Popen(
            ["psql", "-X", "-q", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres", "-d", db_name(i)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True, env=env)
            for i in range(1, n + 1)]
        self.texts = [statement(j) for j in range(statements)]
        self.step = cycle / statements
        self.stopped = threading.Event()
        self.sent = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        j = 0
        next_step = time.time()
        while not self.stopped.is_set():
            for client in self.clients:
                client.stdin.write(self.texts[j])
                client.stdin.flush()
            self.sent += len(self.clients)
            j = (j + 1) % len(self.texts)
            next_step += self.step
            self.stopped.wait(max(0, next_step - time.time()))

    def stop(self):
        self.stopped.set()
        self.thread.join(10)
        for client in self.clients:
            try:
                client.stdin.close()
            except OSError:
                pass
        for client in self.clients:
            try:
                client.wait(10)
            except subprocess.TimeoutExpired:
                client.kill()


# ---------------------------------------------------------------------------------------------
# Readings of the monitored cluster

def roles(source):
    rows = source.sql(f"select rolname, oid from pg_roles where rolname in ('postgres', '{MONITOR}')")
    return {name: int(oid) for name, oid in (line.split("|") for line in rows.splitlines())}


def counters(source, oids):
    """pg_stat_statements calls of the collector's and the workload's role in the bench databases,
    entries (all / the collector's / the collector's most in one database), deallocations, and the
    bench databases' transactions."""
    row = source.sql(
        "with s as (select s.* from pg_stat_statements(false) s join pg_database d on d.oid = s.dbid"
        f"  where d.{BENCH_DBS})"
        f" select coalesce((select sum(calls) from s where userid = {oids[MONITOR]}), 0)::int8,"
        f" coalesce((select sum(calls) from s where userid = {oids['postgres']}), 0)::int8,"
        " (select count(*) from pg_stat_statements(false)),"
        f" (select count(*) from pg_stat_statements(false) where userid = {oids[MONITOR]}),"
        f" coalesce((select max(c) from (select count(*) c from s where userid = {oids[MONITOR]} group by dbid) x), 0),"
        " (select dealloc from pg_stat_statements_info),"
        f" (select coalesce(sum(xact_commit + xact_rollback), 0)::int8 from pg_stat_database where {BENCH_DBS})")
    keys = ("collector_calls", "workload_calls", "entries", "collector_entries", "collector_entries_max_db",
            "dealloc", "xacts")
    return dict(zip(keys, (int(x) for x in row.split("|"))))


def cluster_pids(source):
    """The workload's backends and the cluster's auxiliary processes: all of them live through a run,
    so what the cluster spent beyond them (and the postmaster's own time) is the collector's sessions'."""
    rows = source.sql("select pid, backend_type, coalesce(application_name, '') from pg_stat_activity"
                      " where pid <> pg_backend_pid()")
    workload, aux = [], []
    for line in rows.splitlines():
        pid, backend_type, app = line.split("|", 2)
        if app == WORKLOAD_APP:
            workload.append(int(pid))
        elif backend_type != "client backend":
            aux.append(int(pid))
    return workload, aux


def cpu_split(source, workload, aux):
    """(whole cluster, workload backends, auxiliary processes + the postmaster's own) in ticks."""
    whole = source.cpu_ticks()
    own = lambda pids: sum(st[1] for st in (proc_stat(p) for p in pids) if st is not None)
    return whole, own(workload), own(aux) + proc_stat(source.postmaster)[1]


def await_collector_gone(source, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if source.sql(f"select count(*) from pg_stat_activity where usename = '{MONITOR}'") == "0":
            return
        time.sleep(0.5)
    log("WARNING: the collector's sessions are still open after 60 s")


# ---------------------------------------------------------------------------------------------
# pgharvest's heap

def class_histogram(args, pid):
    """Live heap after a full collection (jcmd GC.class_histogram collects first): the total, and
    bytes and instances of pgharvest's insights and window classes."""
    jcmd = str(Path(args.java).parent / "jcmd")
    out = subprocess.run([jcmd, str(pid), "GC.class_histogram"], capture_output=True, text=True, timeout=120).stdout
    result = {"live_heap_mb": None, "insights_bytes": 0, "window_bytes": 0, "statement_keys": 0}
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == "Total":
            result["live_heap_mb"] = round(int(parts[2]) / 1048576, 1)
        elif len(parts) >= 4 and parts[0].endswith(":"):
            instances, size, name = int(parts[1]), int(parts[2]), parts[3]
            if name.startswith("io.pgharvest.insights."):
                result["insights_bytes"] += size
            if name.startswith("io.pgharvest.window."):
                result["window_bytes"] += size
            if name == "io.pgharvest.insights.StatementKey":
                result["statement_keys"] = instances
    return result


# ---------------------------------------------------------------------------------------------
# The collectors

def write_sources(root, n, side, source, interval, window):
    if side == "pgwatch":
        extra = {"custom_metrics": {"stat_statements": interval, "stat_statements_calls": interval}}
    elif window:
        extra = {"preset_metrics": "standard", "custom_metrics": {"query_samples": 10}}
    else:
        extra = {"preset_metrics": "query_insights", "custom_metrics": {"query_stats": interval}}
    entries = [{"name": db_name(i), "conn_str": f"postgresql://{MONITOR}@127.0.0.1:{source.port}/{db_name(i)}",
                "kind": "postgres", "is_enabled": True, **json.loads(json.dumps(extra))}  # no YAML aliases
               for i in range(1, n + 1)]
    import yaml
    path = root / f"sources-{side}-{n}{'-window' if window else ''}.yaml"
    path.write_text(yaml.safe_dump(entries, sort_keys=False))
    return path


def start_collector(args, side, work, sources, metrics, sink_url, window_arg):
    if side == "pgwatch":
        log_path = work / "pgwatch.log"
        popen = subprocess.Popen([args.pgwatch, f"--sources={sources}", f"--metrics={metrics}", f"--sink={sink_url}",
                                  "--web-disable=all"], cwd=work, stdout=open(log_path, "w"), stderr=subprocess.STDOUT)
        return Collector("pgwatch", popen, log_path)
    return launch_pgharvest(args.java, args.jvm_options, args.jar, args.aot_cache, work, [
        f"--pgharvest.import.sources={sources}", "--pgharvest.sinks[0].type=postgres",
        f"--pgharvest.sinks[0].url={sink_url}", *window_arg])


# ---------------------------------------------------------------------------------------------
# One run

def run_once(args, kind, side, n, run_no, ctx):
    source, sink, root, oids = ctx["source"], ctx["sink"], ctx["root"], ctx["oids"]
    window_mode = kind == "window"
    window_arg = []
    if window_mode:
        window_arg = ([f"--pgharvest.window.span={args.window_span}"] if side == "window-on"
                      else ["--pgharvest.window.enabled=false"])
    collector_side = "pgharvest" if window_mode else side
    work = Path(tempfile.mkdtemp(prefix=f"{run_no:02d}-{side}-{n}-", dir=root))
    sink_db = f"sink_{run_no:02d}"
    sink.sql(f"create database {sink_db}")
    source.sql("select pg_stat_statements_reset()")
    collector = None
    launched = time.time()
    try:
        if side != "none":
            sources = write_sources(root, n, collector_side, source, args.interval, window_mode)
            collector = start_collector(args, collector_side, work, sources, ctx["metrics"], sink.url(sink_db),
                                        window_arg)
        warmup = args.window_fill if window_mode else args.warmup
        while time.time() < launched + warmup:
            if collector:
                collector.require_alive()
            time.sleep(1)
        workload_pids, aux_pids = cluster_pids(source)
        c0 = counters(source, oids)
        sent0 = ctx["workload"].sent
        time.sleep(1)  # the psql session above is reaped before the window's first CPU reading
        load_start = load_average()
        t0 = time.time()
        cpu0 = cpu_split(source, workload_pids, aux_pids)
        ccpu0 = proc_stat(collector.pid) if collector else None
        jfr = Path(args.jfr_dir) / f"{args.label}-{run_no:02d}-{side}-{n}.jfr" if (
            args.jfr_dir and collector_side == "pgharvest" and collector) else None
        if jfr:
            jfr.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run([str(Path(args.java).parent / "jcmd"), str(collector.pid), "JFR.start", "name=bench",
                            "settings=profile"], check=True, capture_output=True, timeout=60)
        meters0 = pgharvest_meters(collector, only_totals=False) if collector_side == "pgharvest" and collector else {}
        rss = []
        window = args.window_memory_window if window_mode else args.window
        while True:
            if collector:
                collector.require_alive()
                rss.append(rss_kb(collector.pid))
            left = t0 + window - time.time()
            if left <= 0:
                break
            time.sleep(min(2, left))
        cpu1 = cpu_split(source, workload_pids, aux_pids)
        ccpu1 = proc_stat(collector.pid) if collector else None
        t1 = time.time()
        if jfr:
            subprocess.run([str(Path(args.java).parent / "jcmd"), str(collector.pid), "JFR.stop", "name=bench",
                            f"filename={jfr}"], check=True, capture_output=True, timeout=60)
        load_end = load_average()
        c1 = counters(source, oids)
        sent1 = ctx["workload"].sent
        meters1 = pgharvest_meters(collector, only_totals=False) if collector_side == "pgharvest" and collector else {}
        heap = class_histogram(args, collector.pid) if collector_side == "pgharvest" and collector else {}
    finally:
        if collector:
            collector.stop()
    await_collector_gone(source)
    if collector:
        logs = Path(args.output) / "logs"
        logs.mkdir(exist_ok=True)
        shutil.copy(collector.log_path, logs / f"{args.label}-{run_no:02d}-{side}-{n}.log")
    sink.sql(f"drop database {sink_db} with (force)")
    shutil.rmtree(work, ignore_errors=True)
    minutes = (t1 - t0) / 60
    per_min = lambda ticks: round(ticks / CLK_TCK / minutes, 2)
    whole, workload_cpu, aux_cpu = (b - a for a, b in zip(cpu0, cpu1))
    workload_statements = c1["workload_calls"] - c0["workload_calls"]
    r = {
        "label": args.label, "commit": args.commit, "kind": kind, "side": side, "sources": n, "run": run_no,
        "pair": None, "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "interval_s": args.interval, "window_s": round(t1 - t0, 1), "warmup_s": warmup,
        "load_start": load_start, "load_end": load_end,
        "cluster_cpu_s_per_min": per_min(whole),
        "collector_sessions_cpu_s_per_min": per_min(whole - workload_cpu - aux_cpu),
        "workload_cpu_s_per_min": per_min(workload_cpu),
        "collector_statements_per_min": round((c1["collector_calls"] - c0["collector_calls"]) / minutes),
        # transactions in the bench databases beyond the workload's statements (each its own
        # transaction): the collector's, also when its role is not tracked; backends report these
        # at most once a second (up to 10 s late when idle), so it is the rougher figure
        "collector_xacts_per_min": round((c1["xacts"] - c0["xacts"] - workload_statements) / minutes),
        "workload_statements_per_min": round(workload_statements / minutes),
        "workload_sent_per_min": round((sent1 - sent0) / minutes),
        "entries_end": c1["entries"], "collector_entries_end": c1["collector_entries"],
        "collector_entries_max_db": c1["collector_entries_max_db"],
        "dealloc_per_min": round((c1["dealloc"] - c0["dealloc"]) / minutes, 1),
        "dealloc_since_reset": c1["dealloc"], "since_reset_s": round(t1 - launched),
    }
    if collector:
        r["collector_cpu_s_per_min"] = round((ccpu1[1] + ccpu1[2] - ccpu0[1] - ccpu0[2]) / CLK_TCK / minutes, 2)
        r["collector_rss_mean_mb"] = round(statistics.mean(x for x in rss if x) / 1024, 1)
        r["collector_rss_max_mb"] = round(max(x for x in rss if x) / 1024, 1)
    r.update(heap)
    if meters1:
        r["window_meters"] = {k: meters1[k] for k in sorted(meters1) if k.startswith("pgharvest_window_")}
        r["pgharvest_counters"] = {k: round(v - meters0.get(k, 0)) for k, v in sorted(meters1.items())
                                   if k.endswith("_total") and v - meters0.get(k, 0)}
    return r


# ---------------------------------------------------------------------------------------------
# Report

PAIR_FIGURES = [
    ("cluster_cpu_s_per_min", "cluster CPU-s/min", "{:.2f}"),
    ("collector_sessions_cpu_s_per_min", "collector sessions CPU-s/min", "{:.2f}"),
    ("collector_statements_per_min", "collector statements/min (pgss)", "{:,}"),
    ("collector_xacts_per_min", "collector xacts/min", "{:,}"),
    ("collector_cpu_s_per_min", "collector CPU-s/min", "{:.2f}"),
    ("collector_rss_mean_mb", "collector RSS MB", "{:.0f}"),
    ("live_heap_mb", "live heap MB", "{}"),
    ("statement_keys", "snapshot entries", "{}"),
    ("collector_entries_end", "collector's pgss entries", "{:,}"),
    ("collector_entries_max_db", "most in one db", "{}"),
    ("entries_end", "pgss entries", "{:,}"),
    ("dealloc_per_min", "deallocations/min", "{}"),
]
WINDOW_FIGURES = [
    ("collector_rss_mean_mb", "RSS MB", "{:.0f}"),
    ("live_heap_mb", "live heap MB", "{}"),
    ("window_bytes", "window classes B", "{:,}"),
    ("collector_cpu_s_per_min", "CPU-s/min", "{:.2f}"),
]


def cell(r, key, fmt):
    v = r.get(key)
    return "–" if v is None else fmt.format(v)


def render(runs):
    out = []
    for label in dict.fromkeys(r["label"] for r in runs):
        out += [f"## {label}", ""]
        rs_label = [r for r in runs if r["label"] == label]
        for kind, n in dict.fromkeys((r["kind"], r["sources"]) for r in rs_label):
            rs = sorted((r for r in rs_label if r["kind"] == kind and r["sources"] == n), key=lambda r: r["run"])
            figures = WINDOW_FIGURES if kind == "window" else PAIR_FIGURES
            out += [f"### {kind}, {n} databases (interval {rs[0]['interval_s']} s, window {round(rs[0]['window_s'])} s,"
                    f" commit {rs[0]['commit']})", "",
                    "| run | side | " + " | ".join(h for _, h, _ in figures) + " | load (start / end) |",
                    "|---|---|" + "---|" * len(figures) + "---|"]
            for r in rs:
                out.append(f"| {r['run']} | {r['side']} | " + " | ".join(cell(r, k, f) for k, _, f in figures)
                           + f" | {r['load_start']} / {r['load_end']} |")
            for side in dict.fromkeys(r["side"] for r in rs):
                srs = [r for r in rs if r["side"] == side]
                med = {k: statistics.median(r[k] for r in srs if r.get(k) is not None)
                       for k, _, _ in figures if any(r.get(k) is not None for r in srs)}
                out.append(f"| median ({len(srs)}) | {side} | " + " | ".join(cell(med, k, f) for k, _, f in figures)
                           + " | |")
            for r in rs:
                if r.get("window_meters"):
                    out.append(f"- run {r['run']} {r['side']}: " + ", ".join(
                        f"{k} {v:,.0f}" for k, v in r["window_meters"].items()))
            out.append("")
    return "\n".join(out)


def write_report(out, runs_file):
    runs = [json.loads(line) for line in runs_file.read_text().splitlines()] if runs_file.exists() else []
    (out / "results.md").write_text(render(runs))


# ---------------------------------------------------------------------------------------------

def main():
    repo = Path(__file__).resolve().parent.parent
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pgwatch", default=os.environ.get("PGWATCH", "/work/pgwatch/pgwatch"), help="pgwatch v6 binary")
    p.add_argument("--pgwatch-metrics", default=None,
                   help="pgwatch's metrics.yaml (default: <binary's dir>/../pgwatch-src/internal/metrics/metrics.yaml)")
    p.add_argument("--jar", default=str(repo / "target" / "app" / "pgharvest.jar"))
    p.add_argument("--aot-cache", default=None, help="JDK 25 AOT cache (target/app/pgharvest.aot)")
    p.add_argument("--java", default=None, help="java 21+ with jcmd beside it (default: the newest in /usr/lib/jvm)")
    p.add_argument("--jvm-options", default=str(repo / "config" / "jvm.options"))
    p.add_argument("--pg-bin", default="/usr/lib/postgresql/15/bin")
    p.add_argument("--plan", default="pair:60:2,window:60:1,none:300:1,pair:300:2,untracked:300:1,window:300:1",
                   help="kind:N:K,... with kind pair, untracked, alone, none or window")
    p.add_argument("--statements", type=int, default=12, help="distinct statements per database")
    p.add_argument("--cycle", type=int, default=30, help="seconds in which every database runs each statement once")
    p.add_argument("--pgss-max", type=int, default=5000, help="pg_stat_statements.max (PostgreSQL's default 5,000)")
    p.add_argument("--interval", type=int, default=60,
                   help="stat_statements, stat_statements_calls and query_stats interval, seconds")
    p.add_argument("--warmup", type=int, default=60, help="seconds from launch to the window's start")
    p.add_argument("--window", type=int, default=120, help="measurement window, seconds")
    p.add_argument("--window-span", default="5m", help="pgharvest.window.span in the window runs")
    p.add_argument("--window-fill", type=int, default=240, help="seconds from launch before the window's memory is read")
    p.add_argument("--window-memory-window", type=int, default=60, help="seconds of RSS sampling in the window runs")
    p.add_argument("--first", choices=("pgwatch", "pgharvest"), default="pgwatch")
    p.add_argument("--label", default="run")
    p.add_argument("--commit", default=None)
    p.add_argument("--output", default=str(repo / "target" / "query-insights-bench"))
    p.add_argument("--report-only", action="store_true")
    p.add_argument("--jfr-dir", default=None, help="record a JFR profile of each pgharvest run's window here")
    args = p.parse_args()
    set_tag("query-insights")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    runs_file = out / "runs.jsonl"
    if args.report_only:
        write_report(out, runs_file)
        return 0
    import yaml
    plan = [(k, int(n), int(c)) for k, n, c in (item.split(":") for item in args.plan.split(","))]
    max_n = max(n for _, n, _ in plan)
    args.java = args.java or find_java()
    args.jar, args.jvm_options = str(Path(args.jar).resolve()), str(Path(args.jvm_options).resolve())
    if args.aot_cache:
        args.aot_cache = str(Path(args.aot_cache).resolve())
    args.commit = args.commit or subprocess.run(
        ["git", "-C", str(Path(args.jar).parent), "describe", "--always", "--dirty", "--abbrev=7"],
        capture_output=True, text=True).stdout.strip() or "?"
    metrics_file = Path(args.pgwatch_metrics or Path(args.pgwatch).parent.parent / "pgwatch-src/internal/metrics/metrics.yaml")
    root = Path(tempfile.mkdtemp(prefix="query-insights-bench-"))
    os.chmod(root, 0o755)
    clusters, workload = [], None
    try:
        pgwatch_metrics = yaml.safe_load(metrics_file.read_text())["metrics"]
        metrics = root / "metrics.yaml"
        metrics.write_text(yaml.safe_dump({"metrics": {m: pgwatch_metrics[m] for m in
                                                       ("stat_statements", "stat_statements_calls")}}, sort_keys=False))
        source = Cluster("source", args.pg_bin, root, {
            "shared_preload_libraries": "'pg_stat_statements'", "pg_stat_statements.max": str(args.pgss_max),
            "autovacuum": "off", "max_connections": str(5 * max_n + 50), "shared_buffers": "'256MB'"})
        clusters.append(source)
        sink = Cluster("sink", args.pg_bin, root, {"max_connections": "100", "shared_buffers": "'256MB'"})
        clusters.append(sink)
        # in template1, so that every bench database has the view and the workload's table
        source.sql("create extension pg_stat_statements", "template1")
        source.sql("create table bench_work (id int primary key, payload text);"
                   " insert into bench_work select i, md5(i::text) from generate_series(1, 1000) i", "template1")
        source.sql("create extension if not exists pg_stat_statements")
        source.sql(f"create role {MONITOR} login in role pg_monitor")
        for i in range(1, max_n + 1):
            source.sql(f"create database {db_name(i)}")
        oids = roles(source)
        log(f"PostgreSQL {source.sql('show server_version')}, {max_n} databases, pg_stat_statements.max "
            f"{args.pgss_max}, {args.statements} statements per database every {args.cycle} s; plan {plan}; "
            f"commit {args.commit}; load {load_average()}")
        ctx = {"source": source, "sink": sink, "root": root, "oids": oids, "metrics": metrics}
        previous = [json.loads(line) for line in runs_file.read_text().splitlines()] if runs_file.exists() else []
        run_no = max((r["run"] for r in previous if r["label"] == args.label), default=0)
        pair_no = max((r["pair"] or 0 for r in previous if r["label"] == args.label), default=0)
        first = args.first
        failures = 0
        workload_n = None
        for kind, n, count in plan:
            if workload_n != n:
                if workload:
                    workload.stop()
                workload = Workload(source, n, args.statements, args.cycle)
                ctx["workload"] = workload
                workload_n = n
                time.sleep(args.cycle)
            source.sql(f"alter role {MONITOR} " + ("set pg_stat_statements.track = 'none'" if kind == "untracked"
                                                  else "reset pg_stat_statements.track"))
            for _ in range(count):
                pair_no += 1
                if kind == "none":
                    order = ("none",)
                elif kind == "alone":
                    order = ("pgharvest",)
                elif kind == "window":
                    order = ("window-on", "window-off") if first == "pgwatch" else ("window-off", "window-on")
                    first = "pgharvest" if first == "pgwatch" else "pgwatch"
                else:
                    order = (first, "pgharvest" if first == "pgwatch" else "pgwatch")
                    first = order[1]
                for side in order:
                    run_no += 1
                    log(f"run {run_no}: {kind} {side}, N={n}; load {load_average()}")
                    try:
                        r = run_once(args, kind, side, n, run_no, ctx)
                    except (RuntimeError, subprocess.CalledProcessError, OSError) as e:
                        failures += 1
                        log(f"  run {run_no} FAILED: {e}")
                        continue
                    r["pair"] = pair_no
                    log("  " + ", ".join(f"{k} {v}" for k, v in r.items() if not isinstance(v, dict)
                                         and k not in ("label", "commit", "date")))
                    with open(runs_file, "a") as f:
                        f.write(json.dumps(r) + "\n")
                    write_report(out, runs_file)
    finally:
        if workload:
            workload.stop()
        for c in reversed(clusters):
            c.stop()
        shutil.rmtree(root, ignore_errors=True)
    print((out / "results.md").read_text() if (out / "results.md").exists() else "")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
