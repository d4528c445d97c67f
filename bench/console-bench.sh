#!/usr/bin/env bash
# The console at 1,000 sources in headless Chromium (issue 37), measured: the two benchmark tests
# that docs/console.md ("Measured") and docs/performance.md quote, run RUNS times (default 1) in
# this checkout, their figure lines collected in one file.
#
# - ConsoleWindowBenchmarkTest: 1,000 sources with an hour of window points; the overview until its
#   first 250 rows show key numbers (5 times, with each answer's server wait, fetch and size and the
#   page's own rendering), a source page's six charts, and a first load's page weight.
# - ConsoleRenderBenchmarkTest: 1,000 failing sources, the status-only overview, "show all", one
#   change through the open long-poll, the status answer's size.
#
# On a shared machine run it alone, e.g. `quiet bench/console-bench.sh 1` (it calls Maven directly,
# never through `heavy`, which would wait for the quiet run itself). Needs chromium and
# chromium-driver (src/test/setup/install-test-servers.sh) and the Maven repository filled (-o).
# Output: target/console-bench/<UTC time>/{run-N-<test>.log,figures.txt}; figures also on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1}
out=target/console-bench/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
# One Maven run per test: both import 1,000 sources into the test's cached application, and the
# render benchmark counts exactly its own 1,000.
for run in $(seq 1 "$runs"); do
    for test in ConsoleWindowBenchmarkTest ConsoleRenderBenchmarkTest; do
        status=0
        ./mvnw -B -o -Daot.skip=true -Dtest.excludedGroups= -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false \
            test > "$out/run-$run-$test.log" 2>&1 || status=$?
        {
            echo "run $run $test, ended $(date -u +%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg), maven exit $status"
            grep -h "benchmark:" "target/surefire-reports/io.pgharvest.console.$test-output.txt" || true
        } | tee -a "$out/figures.txt"
    done
done
echo "figures: $out/figures.txt"
