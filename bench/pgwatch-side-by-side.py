#!/usr/bin/env python3
"""pgwatch v6 and pgharvest side by side, alternately, on the same workload (issue 10, item 4).

One collector at a time, in pairs whose order alternates, on one monitored PostgreSQL cluster
(one empty database per source) and one separate sink cluster. Both collectors read the same
sources.yaml (pgwatch's format) and the same metric definitions (pgwatch's own metrics.yaml,
imported into pgharvest through its pgwatch import), so both run identical SQL.

See docs/performance.md, "pgwatch v6 side by side", for the workload, every figure, and the
command to reproduce. Needs root (the clusters run as the unprivileged `postgres` account),
Debian's PostgreSQL binaries, PyYAML, a JDK 21+ and the pgharvest fat jar
(./mvnw -B package -DskipTests). pgwatch's files are read from where they are and copied (the
metric subset) to a temp directory only, never into this repository.

Writes <output>/runs.jsonl (one line per run, appended, so several invocations add up) and
<output>/results.md (regenerated from every run of the same --label).
"""

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

from benchlib import (CLK_TCK, TOKEN, Cluster, Collector, await_ready, find_java, is_ready, launch_pgharvest,
                      load_average, log, pgharvest_meters, proc_stat, rss_kb, set_tag)

# The `debug` preset's metrics that need something a plain server does not have (an OS helper
# or extension, a backup tool, server log access, superuser helper functions) or that pgwatch
# itself answers without SQL.
NOT_ON_A_PLAIN_SERVER = {
    "backup_age_pgbackrest", "backup_age_walg", "cpu_load", "psutil_cpu", "psutil_disk",
    "psutil_disk_io_total", "psutil_mem", "smart_health_per_disk", "vmstat", "change_events",
    "server_log_event_counts", "instance_up", "table_bloat_approx_stattuple",
}

SIDES = ("pgwatch", "pgharvest")


def db_name(i):
    return f"bench_{i:04d}"


BENCH_DBS = "datname like 'bench\\_%'"


def source_counters(cluster):
    """Cumulative statements (pg_stat_statements calls), sessions and transactions in the bench databases."""
    row = cluster.sql(
        "select (select coalesce(sum(s.calls), 0)::int8 from pg_stat_statements s join pg_database d"
        f"   on d.oid = s.dbid where d.{BENCH_DBS}),"
        f" (select coalesce(sum(sessions), 0)::int8 from pg_stat_database where {BENCH_DBS}),"
        f" (select coalesce(sum(xact_commit + xact_rollback), 0)::int8 from pg_stat_database where {BENCH_DBS})")
    statements, sessions, xacts = (int(x) for x in row.split("|"))
    # entries pg_stat_statements evicted (each eviction sorts the whole table under an exclusive lock)
    dealloc = int(cluster.sql("select dealloc from pg_stat_statements_info"))
    return {"statements": statements, "sessions": sessions, "transactions": xacts, "pgss_dealloc": dealloc}


def statement_profile(source, limit=12, order="2"):
    """The statements with the most execution time (order "2"; "1": the most calls) in the bench
    databases since the run's reset, summed over databases: [calls, total ms, first 100
    characters of the query]."""
    rows = source.sql(
        "select sum(s.calls)::int8, round(sum(s.total_exec_time)::numeric, 1),"
        " left(regexp_replace(s.query, '\\s+', ' ', 'g'), 100)"
        " from pg_stat_statements s join pg_database d on d.oid = s.dbid"
        f" where d.{BENCH_DBS} group by 3 order by {order} desc limit {limit}")
    return [[int(c), float(ms), q] for c, ms, q in (line.split("|", 2) for line in rows.splitlines())]


def sink_rows(sink, db):
    """Rows inserted into the sink's measurement tables so far (both sinks: public.<metric> and its partitions)."""
    return int(sink.sql("select coalesce(sum(n_tup_ins), 0)::int8 from pg_stat_user_tables"
                        " where schemaname not in ('admin', 'pgharvest')", db))


def sink_has_rows(sink, db):
    """Whether any measurement table of the sink holds a row, looked up in the tables themselves (the
    first sink row). Not from pg_stat_user_tables: a backend reports its inserts there at most once a
    second and may hold them back up to ten seconds when it goes idle, which made the first row appear
    1-3 s late on either side."""
    return sink.sql(
        "select coalesce(bool_or((xpath('/row/x/text()', query_to_xml(format("
        "'select exists (select from %I.%I) as x', n.nspname, c.relname), false, true, '')))[1]::text::boolean), false)"
        " from pg_class c join pg_namespace n on n.oid = c.relnamespace"
        " where c.relkind in ('r', 'p') and not c.relispartition"
        " and n.nspname not in ('admin', 'pgharvest', 'pg_catalog', 'information_schema')"
        " and n.nspname not like 'pg_toast%'", db).strip() == "t"


def measurements_in(sink, db, start_epoch, end_epoch):
    """(rows, measurements, {metric: [rows, measurements]}) whose time falls in [start, end): a
    measurement is one (dbname, time) of one metric. The per-metric figures show which metric a
    difference in rows between the two sides comes from."""
    tables = sink.sql(
        "select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace"
        " where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition"
        " and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'dbname')"
        " and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'time')", db)
    per_metric = {}
    for t in tables.splitlines():
        r, m = sink.sql(
            f'select count(*), count(distinct (dbname, time)) from public."{t}"'
            f" where time >= to_timestamp({start_epoch}) and time < to_timestamp({end_epoch})", db).split("|")
        per_metric[t] = [int(r), int(m)]
    rows = sum(r for r, _ in per_metric.values())
    measurements = sum(m for _, m in per_metric.values())
    return rows, measurements, per_metric


# ---------------------------------------------------------------------------------------------
# The collectors

def start_pgwatch(args, work, sources_yaml, metrics_yaml, sink_url):
    log_path = work / "pgwatch.log"
    cmd = [args.pgwatch, f"--sources={sources_yaml}", f"--metrics={metrics_yaml}", f"--sink={sink_url}",
           "--web-disable=all"]
    popen = subprocess.Popen(cmd, cwd=work, stdout=open(log_path, "w"), stderr=subprocess.STDOUT)
    return Collector("pgwatch", popen, log_path)


def start_pgharvest(args, work, sources_yaml, metrics_yaml, sink_url):
    return launch_pgharvest(args.java, args.jvm_options, args.jar, args.aot_cache, work, [
        # Both collectors log in as the bench cluster's superuser (pgwatch has no such check);
        # pgharvest refuses that unless told (docs/security.md).
        "--pgharvest.security.allow-superuser-sources=true",
        f"--pgharvest.import.metrics={metrics_yaml}", f"--pgharvest.import.sources={sources_yaml}",
        "--pgharvest.sinks[0].type=postgres", f"--pgharvest.sinks[0].url={sink_url}", *args.pgharvest_arg],
        # Not waiting for its readiness: the first sink row is looked for from launch on, as for
        # pgwatch, so it can never read later than it came (run_once waits for the readiness).
        wait_ready=False)


def pgharvest_prometheus(collector):
    """A few of pgharvest's own counters (sums over labels), for the notes; {} when unreachable."""
    return pgharvest_meters(collector)


def instant(value):
    """An Instant as pgharvest's JSON writes it (ISO-8601 text or epoch seconds), as epoch seconds."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def pgharvest_lanes(collector, n, window_end=None, interval=30):
    """After the window: per metric, in how many sources it runs in the solo lane, and in how many
    of those its last run succeeded (so it is not failing on its own); in how many sources it
    succeeded within two intervals of the window's end (`delivering`); plus the sources' states."""
    solo, solo_working, states, delivering = {}, {}, {}, {}
    for i in range(1, n + 1):
        req = urllib.request.Request(f"http://127.0.0.1:{collector.port}/api/v1/sources/{db_name(i)}/status",
                                     headers={"Authorization": f"Bearer {TOKEN}"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                status = json.loads(r.read())
        except OSError as e:
            states["unreadable"] = states.get("unreadable", 0) + 1
            continue
        runtime = status.get("runtime") or {}  # what the reaper reports; null while none runs
        state = runtime.get("state", "no reaper")
        states[state] = states.get(state, 0) + 1
        for m in runtime.get("metrics") or []:
            ok = instant(m.get("lastSuccess"))
            if ok is not None and window_end is not None and ok >= window_end - 2 * interval:
                delivering[m["name"]] = delivering.get(m["name"], 0) + 1
            if m.get("lane") == "SOLO":
                solo[m["name"]] = solo.get(m["name"], 0) + 1
                ok, failed = instant(m.get("lastSuccess")), instant(m.get("lastErrorAt"))
                if ok is not None and (failed is None or ok > failed):
                    solo_working[m["name"]] = solo_working.get(m["name"], 0) + 1
    return {"solo": solo, "solo_last_run_ok": solo_working, "states": states, "delivering": delivering}


# ---------------------------------------------------------------------------------------------
# One run

def run_once(args, side, n, run_no, metrics, clusters, files):
    source, sink = clusters
    work = Path(tempfile.mkdtemp(prefix=f"{run_no:02d}-{side}-{n}-", dir=files["root"]))
    sink_db = f"sink_{run_no:02d}_{side}"
    sink.sql(f"create database {sink_db}")
    source.sql("select pg_stat_statements_reset()")
    sources_yaml = files[f"sources_{n}"]
    start = start_pgwatch if side == "pgwatch" else start_pgharvest
    quiet = await_quiet(args.quiet_load, args.quiet_wait)
    launched = time.time()
    collector = start(args, work, sources_yaml, files["metrics"], sink.url(sink_db))
    try:
        # pgwatch has no readiness probe (ready_s stays None); pgharvest's is looked up beside the first row.
        awaits_ready = side == "pgharvest"
        ready_s = None
        first_rows_s = None
        timeline = {}
        next_timeline_poll = 0
        while time.time() < launched + args.warmup:
            collector.require_alive()
            if first_rows_s is None and sink_has_rows(sink, sink_db):
                first_rows_s = time.time() - launched
            if awaits_ready and ready_s is None and is_ready(collector):
                ready_s = time.time() - launched
            if args.timeline and ready_s is not None and time.time() >= next_timeline_poll:
                for counter, value in pgharvest_prometheus(collector).items():
                    if value > 0 and counter not in timeline:
                        timeline[counter] = round(time.time() - launched, 1)
                next_timeline_poll = time.time() + 1
            # Four looks a second until the first row shows (a look takes 0.1-0.3 s itself), so the
            # figure is within about half a second on both sides; then once a second.
            time.sleep(0.25 if first_rows_s is None or (awaits_ready and ready_s is None) else 1)
        if awaits_ready and ready_s is None:
            await_ready(collector)
            ready_s = time.time() - launched
        if timeline:
            log(f"  seconds from launch to a first count: {timeline}")
        load_start = load_average()
        t0 = time.time()
        cpu0 = proc_stat(collector.pid)
        src_cpu0, sink_cpu0 = source.cpu_ticks(), sink.cpu_ticks()
        src0, rows0 = source_counters(source), sink_rows(sink, sink_db)
        prom0 = pgharvest_prometheus(collector) if side == "pgharvest" else {}
        rss = []
        while True:
            collector.require_alive()
            rss.append(rss_kb(collector.pid))
            left = t0 + args.window - time.time()
            if left <= 0:
                break
            time.sleep(min(2, left))
        cpu1 = proc_stat(collector.pid)
        src_cpu1, sink_cpu1 = source.cpu_ticks(), sink.cpu_ticks()
        t1 = time.time()
        src1, rows1 = source_counters(source), sink_rows(sink, sink_db)
        prom1 = pgharvest_prometheus(collector) if side == "pgharvest" else {}
        load_end = load_average()
        profile = statement_profile(source)
        most_called = statement_profile(source, order="1")
        hwm = None
        for line in Path(f"/proc/{collector.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                hwm = int(line.split()[1])
        # Rows whose time falls in the window, counted now and again after the collector has had
        # --settle seconds more to deliver them: pgharvest delivers a result shared by the sources
        # of one instance to each of them on that source's next tick, up to one interval after the
        # time it carries; pgwatch delivers each read at once. Collection figures stay the window's.
        rows_at_end = measurements_in(sink, sink_db, t0, t1)
        lanes = None
        if side == "pgharvest" and args.at_window_end:
            subprocess.run(args.at_window_end.format(pid=collector.pid, run=f"{args.label}-{run_no:02d}-{n}"),
                           shell=True)
        if side == "pgharvest":
            try:
                lanes = pgharvest_lanes(collector, n, t1, args.interval)
            except Exception as e:  # a note, not a figure: never lose the run for it
                lanes = {"error": repr(e)}
        settle_until = t1 + args.settle
        while time.time() < settle_until:
            collector.require_alive()
            time.sleep(min(1, max(0, settle_until - time.time())))
    finally:
        collector.stop()
    await_no_sessions(source)
    rows_timed, measurements, per_metric = measurements_in(sink, sink_db, t0, t1)
    errors = count_log_errors(collector.log_path)
    logs = Path(args.output) / "logs"
    logs.mkdir(exist_ok=True)
    shutil.copy(collector.log_path, logs / f"{args.label}-{run_no:02d}-{side}-{n}.log")
    sink.sql(f"drop database {sink_db} with (force)")
    shutil.rmtree(work, ignore_errors=True)
    result = {
        "label": args.label, "commit": args.commit, "side": side, "sources": n, "metrics": len(metrics),
        "aot_cache": side == "pgharvest" and args.aot_cache is not None,
        "interval_s": args.interval, "run": run_no, "pair": None,
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "warmup_s": args.warmup, "window_s": round(t1 - t0, 1), "ready_s": round(ready_s, 1) if ready_s is not None else None,
        "first_sink_rows_s": round(first_rows_s, 1) if first_rows_s is not None else None,
        "collector_cpu_s": round((cpu1[1] + cpu1[2] - cpu0[1] - cpu0[2]) / CLK_TCK, 2),
        "rss_mean_mb": round(statistics.mean(r for r in rss if r) / 1024, 1),
        "rss_max_mb": round(max(r for r in rss if r) / 1024, 1),
        "rss_peak_mb": round(hwm / 1024, 1) if hwm else None,
        "statements": src1["statements"] - src0["statements"],
        "new_sessions": src1["sessions"] - src0["sessions"],
        "transactions": src1["transactions"] - src0["transactions"],
        "pgss_dealloc": src1["pgss_dealloc"] - src0["pgss_dealloc"],
        "expected_measurements_per_metric": n * max(1, round((t1 - t0) / args.interval)),
        "source_cpu_s": round((src_cpu1 - src_cpu0) / CLK_TCK, 2),
        "sink_cpu_s": round((sink_cpu1 - sink_cpu0) / CLK_TCK, 2),
        "sink_rows": rows1 - rows0,
        "rows_timed_in_window": rows_timed, "measurements_timed_in_window": measurements,
        "rows_and_measurements_per_metric": per_metric, "settle_s": args.settle,
        "rows_timed_at_window_end": rows_at_end[0], "measurements_timed_at_window_end": rows_at_end[1],
        "rows_and_measurements_per_metric_at_window_end": rows_at_end[2],
        "log_errors": errors,
        "load_start": load_start, "load_end": load_end,
        "load_before_warmup": quiet["load"], "quiet_wait_s": quiet["waited_s"], "quiet": quiet["reached"],
    }
    if measurements:
        result["cpu_ms_per_1000_measurements"] = round(result["collector_cpu_s"] * 1e6 / measurements, 1)
    result["top_statements"] = profile
    result["most_called_statements"] = most_called
    if lanes is not None:
        result["pgharvest_lanes"] = lanes
    if prom1:
        result["pgharvest_counters"] = {k: round(v - prom0.get(k, 0)) for k, v in sorted(prom1.items())
                                        if v - prom0.get(k, 0) != 0}
    return result


def await_quiet(limit, timeout):
    """Waits until the 1-minute load average is under `limit` (a quiet start: what ran before, a
    build or the other collector's shut-down, must not be counted in this run's warm-up), at most
    `timeout` seconds; returns the load it started with and whether it was reached."""
    began = time.time()
    while True:
        load = os.getloadavg()[0]
        if load < limit or time.time() - began >= timeout:
            waited = round(time.time() - began)
            if load >= limit:
                log(f"  load {load:.2f} still over {limit} after {waited} s: starting anyway (marked not quiet)")
            elif waited:
                log(f"  waited {waited} s for the load to fall under {limit}")
            return {"load": round(load, 2), "waited_s": waited, "reached": load < limit}
        time.sleep(5)


def await_no_sessions(source, timeout=60):
    """The next run starts only when the last collector's sessions are gone."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if source.sql(f"select count(*) from pg_stat_activity where {BENCH_DBS}") == "0":
            return
        time.sleep(0.5)
    log("WARNING: sessions of the previous collector still open after 60 s")


def count_log_errors(path):
    text = Path(path).read_text(errors="replace")
    return len(re.findall(r'(?m)(\bERROR\b|level=error|"level":"error")', text))


# ---------------------------------------------------------------------------------------------
# Report

FIGURES = [  # key, heading, format
    ("collector_cpu_s", "collector CPU-s", "{:.2f}"),
    ("rss_mean_mb", "RSS mean MB", "{:.0f}"),
    ("rss_max_mb", "RSS max MB", "{:.0f}"),
    ("statements", "statements on sources", "{:,.0f}"),
    ("new_sessions", "new sessions", "{:.0f}"),
    ("source_cpu_s", "source-cluster CPU-s", "{:.1f}"),
    ("sink_cpu_s", "sink-cluster CPU-s", "{:.1f}"),
    ("sink_rows", "sink rows", "{:,.0f}"),
]


def compare_tables(pgwatch, pgharvest):
    """Where the sides' rows differ: tables only one side wrote (a metric stored differently, e.g.
    pgharvest turns *_hashes reads into *_changes events) and the rows ratio over the tables both
    wrote, with the metrics whose rows differ most."""
    both = sorted(set(pgwatch) & set(pgharvest))
    watch_rows = sum(pgwatch[t][0] for t in both)
    harvest_rows = sum(pgharvest[t][0] for t in both)
    only = lambda a, b: ", ".join(f"{t} ({a[t][0]:,})" for t in sorted(set(a) - set(b)) if a[t][0]) or "none"
    differing = sorted(both, key=lambda t: -abs(pgharvest[t][0] - pgwatch[t][0]))[:3]
    return (f"rows in the {len(both)} tables both sides wrote: pgharvest / pgwatch "
            f"{harvest_rows / watch_rows if watch_rows else float('nan'):.2f} ({harvest_rows:,} / {watch_rows:,}); "
            f"largest differences: " + ", ".join(f"{t} {pgharvest[t][0]:,} / {pgwatch[t][0]:,}" for t in differing)
            + f"; only pgwatch wrote: {only(pgwatch, pgharvest)}; only pgharvest wrote: {only(pgharvest, pgwatch)}")


def delivery_table(pair):
    """Per metric, measurements delivered per expected measurement (sources x window / interval) on
    each side, and pgharvest's rows against pgwatch's: the delivery check of issue 51, printed with
    every side-by-side run. A metric pgwatch delivers and pgharvest does not is listed first."""
    watch, harvest = pair["pgwatch"], pair["pgharvest"]
    w, h = watch["rows_and_measurements_per_metric"], harvest["rows_and_measurements_per_metric"]
    ew, eh = watch.get("expected_measurements_per_metric"), harvest.get("expected_measurements_per_metric")
    if not ew or not eh:
        return []
    share = lambda per, m, e: per.get(m, [0, 0])[1] / e
    metrics = sorted(set(w) | set(h), key=lambda m: (share(h, m, eh) - share(w, m, ew), m))
    # pgharvest stores the *_hashes and privilege_changes reads as change events (rows only when
    # something changed): for those its status says whether they are delivered, not its rows.
    delivering = (harvest.get("pgharvest_lanes") or {}).get("delivering") or {}
    sources = harvest.get("sources") or 1
    as_events = {m for m in metrics if not h.get(m, [0, 0])[1] and delivering.get(m, 0) >= 0.95 * sources}
    missing = [m for m in metrics if share(w, m, ew) > 0.05 and share(h, m, eh) < 0.5 * share(w, m, ew)
               and m not in as_events]
    lines = [f"- delivery check (measurements per expected one; {ew:,} expected per metric): metrics pgwatch "
             f"delivers and pgharvest does not: {', '.join(missing) or 'none'}"
             + (f"; delivered as change events (status: last success within two intervals on at least 0.95 of the "
                f"sources): {', '.join(sorted(as_events))}" if as_events else ""), "",
             "  | metric | pgwatch | pgharvest | rows pgharvest / pgwatch |", "  |---|---|---|---|"]
    for m in metrics:
        rw, rh = w.get(m, [0, 0])[0], h.get(m, [0, 0])[0]
        ratio = f"{rh / rw:.2f}" if rw else "–"
        lines.append(f"  | {m} | {share(w, m, ew):.2f} | {share(h, m, eh):.2f} | {ratio} |")
    lines.append("")
    return lines


def render(runs, label):
    runs = [r for r in runs if r["label"] == label]
    out = [f"## {label}", ""]
    for n in sorted({r["sources"] for r in runs}):
        rs = [r for r in runs if r["sources"] == n]
        first = rs[0]
        out.append(f"### N = {n} ({first['metrics']} metrics every {first['interval_s']} s, "
                   f"warm-up {first['warmup_s']} s, window {round(first['window_s'])} s, commit {first['commit']})")
        out.append("")
        out.append("| run | side | " + " | ".join(h for _, h, _ in FIGURES) + " | load avg (start / end) |")
        out.append("|---|---|" + "---|" * len(FIGURES) + "---|")
        for r in sorted(rs, key=lambda r: r["run"]):
            cells = [f.format(r[k]) for k, _, f in FIGURES]
            out.append(f"| {r['run']} (pair {r['pair']}) | {r['side']} | " + " | ".join(cells)
                       + f" | {r['load_start']} / {r['load_end']} |")
        medians = {}
        for side in SIDES:
            side_runs = [r for r in rs if r["side"] == side]
            if side_runs:
                medians[side] = {k: statistics.median(r[k] for r in side_runs) for k, _, _ in FIGURES}
                cells = [f.format(medians[side][k]) for k, _, f in FIGURES]
                out.append(f"| **median** ({len(side_runs)}) | **{side}** | " + " | ".join(cells) + " | |")
        # ratio per pair, then the median of the pairs' ratios
        pairs = {}
        for r in rs:
            pairs.setdefault(r["pair"], {})[r["side"]] = r
        ratios = {k: [] for k, _, _ in FIGURES}
        for pair in pairs.values():
            if len(pair) == 2:
                for k, _, _ in FIGURES:
                    if pair["pgwatch"][k]:
                        ratios[k].append(pair["pgharvest"][k] / pair["pgwatch"][k])
        if any(ratios.values()):
            cells = ["{:.2f}".format(statistics.median(v)) if v else "–" for v in ratios.values()]
            out.append(f"| **pgharvest / pgwatch** (median of {len([p for p in pairs.values() if len(p) == 2])}"
                       " pairs) | | " + " | ".join(cells) + " | |")
        out.append("")
        for side in SIDES:
            firsts = [r.get("first_sink_rows_s") for r in rs if r["side"] == side]
            if firsts:
                shown = ", ".join("–" if f is None else f"{f:.1f}" for f in firsts)
                per_k = ", ".join(f"{r['cpu_ms_per_1000_measurements']:.0f}" if r.get("cpu_ms_per_1000_measurements")
                                  else "–" for r in rs if r["side"] == side)
                quiet = ", ".join(f"{r['load_before_warmup']}" + ("" if r.get("quiet") else " (not quiet)")
                                  if "load_before_warmup" in r else "–" for r in rs if r["side"] == side)
                out.append(f"- {side}: collector CPU-ms per 1,000 measurements timed in the window: {per_k}; "
                           f"1-minute load at launch: {quiet}")
                out.append(f"- {side}: seconds from launch to the first sink row: {shown}; "
                           f"statements per measurement timed in the window: "
                           + ", ".join(f"{r['statements'] / r['measurements_timed_in_window']:.2f}"
                                       if r.get("measurements_timed_in_window") else "–"
                                       for r in rs if r["side"] == side))
        for number, pair in sorted(pairs.items()):
            if len(pair) == 2 and "rows_and_measurements_per_metric" in pair["pgwatch"] \
                    and "rows_and_measurements_per_metric" in pair["pgharvest"]:
                settle = pair["pgharvest"].get("settle_s")
                out.append(f"- pair {number}: " + compare_tables(pair["pgwatch"]["rows_and_measurements_per_metric"],
                                                                pair["pgharvest"]["rows_and_measurements_per_metric"])
                           + (f" (counted {settle} s after the window)" if settle else ""))
                out.extend(delivery_table(pair))
                if "rows_and_measurements_per_metric_at_window_end" in pair["pgharvest"]:
                    out.append(f"- pair {number}, counted at the window's end: " + compare_tables(
                        pair["pgwatch"]["rows_and_measurements_per_metric_at_window_end"],
                        pair["pgharvest"]["rows_and_measurements_per_metric_at_window_end"]).split("; largest")[0])
        for r in rs:
            expected = r.get("expected_measurements_per_metric")
            if expected and r.get("rows_and_measurements_per_metric"):
                low = sorted((m for m, (_, k) in r["rows_and_measurements_per_metric"].items() if k < 0.95 * expected),
                             key=lambda m: r["rows_and_measurements_per_metric"][m][1])
                out.append(f"- run {r['run']} {r['side']}: {len(r['rows_and_measurements_per_metric'])} tables; "
                           f"under 0.95 of the expected {expected:,} measurements: "
                           + (", ".join(f"{m} {r['rows_and_measurements_per_metric'][m][1] / expected:.2f}"
                                        for m in low) or "none")
                           + f"; pg_stat_statements evictions {r.get('pgss_dealloc', '?')}")
            lanes = r.get("pgharvest_lanes")
            if lanes and lanes.get("solo") is not None:
                solo = ", ".join(f"{m} {k}" + (f" ({lanes['solo_last_run_ok'].get(m, 0)} last run ok)"
                                              if lanes["solo_last_run_ok"].get(m) else "")
                                 for m, k in sorted(lanes["solo"].items()))
                out.append(f"- run {r['run']} pgharvest, solo lane after the window (metric: sources): "
                           f"{solo or 'none'}; source states {lanes.get('states')}")
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------

def main():
    repo = Path(__file__).resolve().parent.parent
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pgwatch", default=os.environ.get("PGWATCH", "/work/pgwatch/pgwatch"), help="pgwatch v6 binary")
    p.add_argument("--pgwatch-metrics", default=None,
                   help="pgwatch's metrics.yaml (default: <binary's dir>/pgwatch-src/internal/metrics/metrics.yaml)")
    p.add_argument("--jar", default=str(repo / "target" / "pgharvest.jar"))
    p.add_argument("--java", default=None, help="java 21+ (default: the newest in /usr/lib/jvm)")
    p.add_argument("--jvm-options", default=str(repo / "config" / "jvm.options"))
    p.add_argument("--aot-cache", default=None,
                   help="JDK 25 AOT cache for pgharvest (-XX:AOTCache), e.g. target/app/pgharvest.aot; "
                        "then --jar target/app/pgharvest.jar, the extracted jar it was trained with")
    p.add_argument("--pg-bin", default="/usr/lib/postgresql/15/bin")
    p.add_argument("--plan", default="6:3,60:3,300:1", help="N:pairs,... (default 6:3,60:3,300:1)")
    p.add_argument("--warmup", type=int, default=60, help="seconds from launch to the window's start")
    p.add_argument("--window", type=int, default=240, help="measurement window, seconds")
    p.add_argument("--interval", type=int, default=30, help="every metric's interval, seconds")
    p.add_argument("--first", choices=SIDES, default="pgwatch", help="side that starts the first pair")
    p.add_argument("--only", choices=SIDES, default=None,
                   help="run one side only (profiling a change; never for a side-by-side figure)")
    p.add_argument("--pgharvest-arg", action="append", default=[],
                   help="extra argument for pgharvest (repeatable; profiling, e.g. --logging.level.x=DEBUG)")
    p.add_argument("--settle", type=int, default=None,
                   help="seconds the collector runs on after the window before rows of the window are "
                        "counted (default: one interval); collection figures are the window's only")
    p.add_argument("--timeline", action="store_true",
                   help="poll pgharvest's counters each second of the warm-up and print when each first counted "
                        "(profiling the first sink row; the polls cost pgharvest CPU)")
    p.add_argument("--at-window-end", default=None,
                   help="shell command run for pgharvest when the window closes, before it stops, with "
                        "{pid} and {run} replaced (e.g. jcmd {pid} VM.native_memory summary > /tmp/nmt-{run})")
    p.add_argument("--source-cpus", type=float, default=None,
                   help="starve the monitored cluster of CPU: its processes share this many processors' worth of "
                        "time (a cgroup CPU quota, e.g. 0.3), a saturated server whatever else the machine runs")
    p.add_argument("--quiet-load", type=float, default=1.5,
                   help="before each launch, wait until the 1-minute load average is under this (default 1.5)")
    p.add_argument("--quiet-wait", type=int, default=900,
                   help="longest wait for --quiet-load, seconds; a run started above it is marked not quiet")
    p.add_argument("--exclude", default="", help="metrics,... left out on both sides (e.g. those failing on a plain server)")
    p.add_argument("--commit", default=None, help="what the jar was built from (default: git describe of its checkout)")
    p.add_argument("--label", default="run", help="groups runs in the report (e.g. baseline)")
    p.add_argument("--output", default=str(repo / "target" / "pgwatch-side-by-side"))
    p.add_argument("--report-only", action="store_true", help="measure nothing; write results.md from runs.jsonl")
    args = p.parse_args()
    set_tag("side-by-side")
    # a plain kill runs the clean-up below too (collector, clusters, temp files)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    runs_file = out / "runs.jsonl"
    if args.report_only:
        write_report(out, runs_file)
        return 0
    if not os.access(args.pgwatch, os.X_OK):
        print(f"SKIPPED: no pgwatch binary at {args.pgwatch} (build it from source as /work/shared/pgwatch-build.md"
              " says, then pass --pgwatch PATH or set PGWATCH)", flush=True)
        return 0
    metrics_file = Path(args.pgwatch_metrics or Path(args.pgwatch).parent / "pgwatch-src/internal/metrics/metrics.yaml")
    for what, path in (("pgwatch metrics.yaml", metrics_file), ("pgharvest jar", Path(args.jar)),
                       ("PostgreSQL binaries", Path(args.pg_bin) / "initdb"), ("JVM options", Path(args.jvm_options)),
                       *((("AOT cache", Path(args.aot_cache)),) if args.aot_cache else ())):
        if not path.exists():
            sys.exit(f"{what} not found at {path}")
    # pgharvest runs in its own work directory: relative paths would not be found there.
    args.jar, args.jvm_options = str(Path(args.jar).resolve()), str(Path(args.jvm_options).resolve())
    if args.aot_cache:
        args.aot_cache = str(Path(args.aot_cache).resolve())
    args.java = args.java or find_java()
    if args.settle is None:
        args.settle = args.interval
    if not args.java:
        sys.exit("no JDK 21+ in /usr/lib/jvm; pass --java")
    try:
        import yaml
    except ImportError:
        sys.exit("PyYAML is needed (pip install pyyaml)")
    plan = [(int(n), int(k)) for n, k in (item.split(":") for item in args.plan.split(","))]
    max_n = max(n for n, _ in plan)
    # the commit the jar was built from: the jar's own checkout unless --commit says otherwise
    args.commit = args.commit or subprocess.run(
        ["git", "-C", str(Path(args.jar).resolve().parent), "describe", "--always", "--dirty", "--abbrev=7"],
        capture_output=True, text=True).stdout.strip() or "?"

    pgwatch_metrics = yaml.safe_load(metrics_file.read_text())
    excluded = {m for m in args.exclude.split(",") if m}
    metrics = [m for m in pgwatch_metrics["presets"]["debug"]["metrics"]
               if m not in NOT_ON_A_PLAIN_SERVER and m not in excluded]
    log(f"{len(metrics)} metrics of pgwatch's debug preset, every {args.interval} s; plan {plan}; "
        f"warm-up {args.warmup} s, window {args.window} s; commit {args.commit}; load {load_average()}")

    root = Path(tempfile.mkdtemp(prefix="pgwatch-side-by-side-"))
    os.chmod(root, 0o755)
    clusters = []
    try:
        # The metric subset, pgwatch's own definitions, in a temp file that both collectors read.
        subset = {"metrics": {m: pgwatch_metrics["metrics"][m] for m in metrics}}
        files = {"root": root, "metrics": root / "metrics.yaml"}
        files["metrics"].write_text(yaml.safe_dump(subset, sort_keys=False))
        source = Cluster("source", args.pg_bin, root, {
            "shared_preload_libraries": "'pg_stat_statements'", "pg_stat_statements.max": "20000",
            "autovacuum": "off", "max_connections": str(4 * max_n + 50), "shared_buffers": "'256MB'"})
        clusters.append(source)
        sink = Cluster("sink", args.pg_bin, root, {"max_connections": "100", "shared_buffers": "'256MB'"})
        clusters.append(sink)
        # in template1, so that every bench database has the view
        source.sql("create extension pg_stat_statements", "template1")
        source.sql("create extension if not exists pg_stat_statements")
        for i in range(1, max_n + 1):
            source.sql(f"create database {db_name(i)}")
        log(f"PostgreSQL {source.sql('show server_version')}: source cluster with {max_n} databases on port "
            f"{source.port}, sink cluster on port {sink.port}")
        if args.source_cpus:
            source.limit_cpu(args.source_cpus)
            log(f"source cluster limited to {args.source_cpus} CPUs ({source.cgroup})")
        for n, _ in plan:
            entries = [{"name": db_name(i), "conn_str": source.url(db_name(i)), "kind": "postgres",
                        "is_enabled": True, "custom_metrics": {m: args.interval for m in metrics}}
                       for i in range(1, n + 1)]
            files[f"sources_{n}"] = root / f"sources-{n}.yaml"
            files[f"sources_{n}"].write_text(yaml.safe_dump(entries, sort_keys=False))

        previous = [json.loads(l) for l in runs_file.read_text().splitlines()] if runs_file.exists() else []
        run_no = max((r["run"] for r in previous if r["label"] == args.label), default=0)
        pair_no = max((r["pair"] for r in previous if r["label"] == args.label), default=0)
        first = args.first
        failures = 0
        for n, pairs in plan:
            for _ in range(pairs):
                pair_no += 1
                order = (first, SIDES[1 - SIDES.index(first)])
                first = order[1]  # alternate who goes first
                for side in order:
                    if args.only and side != args.only:
                        continue
                    run_no += 1
                    log(f"run {run_no}: {side}, N={n} (pair {pair_no}); load {load_average()}")
                    try:
                        r = run_once(args, side, n, run_no, metrics, clusters, files)
                    except (RuntimeError, subprocess.CalledProcessError, OSError) as e:
                        failures += 1
                        log(f"  run {run_no} FAILED: {e}")  # the others still run; the exit code says so
                        continue
                    r["pair"] = pair_no
                    log("  " + ", ".join(f"{k} {r[k]}" for k, _, _ in FIGURES)
                        + f", errors in log {r['log_errors']}, load {r['load_start']} -> {r['load_end']}")
                    with open(runs_file, "a") as f:
                        f.write(json.dumps(r) + "\n")
                    write_report(out, runs_file)
    finally:
        for c in reversed(clusters):
            c.stop()
        shutil.rmtree(root, ignore_errors=True)
    print((out / "results.md").read_text() if (out / "results.md").exists() else "")
    return 1 if failures else 0


def write_report(out, runs_file):
    runs = [json.loads(l) for l in runs_file.read_text().splitlines()] if runs_file.exists() else []
    labels = list(dict.fromkeys(r["label"] for r in runs))
    (out / "results.md").write_text("\n".join(render(runs, label) for label in labels))


if __name__ == "__main__":
    sys.exit(main())
