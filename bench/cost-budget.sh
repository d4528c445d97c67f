#!/bin/sh
# The collector's cost budget (issue 50, docs/performance.md#the-cost-budget): pgharvest alone on the
# identical-SQL workload of bench/pgwatch-side-by-side.py (pgwatch's debug metrics imported, every
# 30 s, N databases, PostgreSQL sink, fat jar as `java -jar` runs it), once with every feature on and
# once with each per-row feature off, in turns, so each feature's share is the difference of two
# neighbouring runs: the recent window (pgharvest.window.enabled), alert evaluation of the built-in
# pack (pgharvest.alert.enabled) and pgharvest's own rows (pgharvest.self-metrics.enabled). History
# readers cost nothing until a chart asks, and the log reader runs only for a source that selects
# log_* metrics (none here): both are measured by their own benches (history-bench.sh,
# log-parse-bench.sh). Each run waits for a quiet machine (load under 1.5) like the side by side.
#
# Usage: bench/cost-budget.sh [sources] [rounds] [extra options of pgwatch-side-by-side.py]
# Report: target/cost-budget/results.md, one section per variant (CPU-ms per 1,000 measurements,
# RSS mean); compare the RSS with bench/stack-floor's figure of the same session.
set -e
cd "$(dirname "$0")/.."
N=${1:-60}
ROUNDS=${2:-1}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
METRICS=${PGWATCH_METRICS:-/work/pgwatch-src/internal/metrics/metrics.yaml}
run() {
    label=$1
    shift
    python3 bench/pgwatch-side-by-side.py --only pgharvest --plan "$N:1" --warmup 60 --window 180 \
        --pgwatch-metrics "$METRICS" --output target/cost-budget --label "$label" "$@"
}
i=0
while [ "$i" -lt "$ROUNDS" ]; do
    run all-on "$@"
    run window-off --pgharvest-arg=--pgharvest.window.enabled=false "$@"
    run alerts-off --pgharvest-arg=--pgharvest.alert.enabled=false "$@"
    run self-metrics-off --pgharvest-arg=--pgharvest.self-metrics.enabled=false "$@"
    i=$((i + 1))
done
