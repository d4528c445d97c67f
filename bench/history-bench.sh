#!/usr/bin/env bash
# The postgres history reader at fleet scale (issue 47), measured: HistoryReadBenchmarkTest writes
# DAYS (30) days of SOURCES (300) sources' db_stats, backends and query_stats every INTERVAL (60) s
# through the postgres sink's own COPY encoder into an embedded PostgreSQL of its own, then reads a
# 7-day source page (every charted metric plus the 7-day top statements) and one source's 30-day
# top statements five times each, printing the wall time and the server's CPU (every backend of
# that server, from /proc). Targets (docs/performance.md): the page under 1 s, the month's top
# statements under 2 s.
#
# The write is 38.9 million measurements at the defaults: 21 minutes on 2 shared cores at load 14-36
# (2026-12-02), and tens of GB of disk. Run it alone for read times that are the server's, not the queue's. Smaller: DAYS=7 SOURCES=50 bench/history-bench.sh
# Output: target/history-bench/<UTC time>/{run.log,figures.txt}; figures also on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/history-bench/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
status=0
./mvnw -B -o -Daot.skip=true -Dtest.excludedGroups= -Dtest=HistoryReadBenchmarkTest \
    -Dsurefire.failIfNoSpecifiedTests=false \
    -Dbench.history.days="${DAYS:-30}" -Dbench.history.sources="${SOURCES:-300}" -Dbench.history.interval="${INTERVAL:-60}" \
    test > "$out/run.log" 2>&1 || status=$?
{
    echo "history bench, ended $(date -u +%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg), maven exit $status"
    grep -h "benchmark:" target/surefire-reports/io.pgharvest.history.HistoryReadBenchmarkTest-output.txt || true
} | tee "$out/figures.txt"
exit "$status"
