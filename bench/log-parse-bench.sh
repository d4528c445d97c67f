#!/bin/sh
# Parse throughput of the server log formats (csvlog, jsonlog, stderr) on one core, parse alone and
# parse + classify + redact (serverlog.LogParseBenchmark; figures in docs/performance.md).
# Entries: -Dpgharvest.bench.log-entries=N (default 200000, about 60 MB per format).
cd "$(dirname "$0")/.." || exit 1
exec nice -n 19 ./mvnw -B -q test -Dtest=LogParseBenchmark -Dtest.excludedGroups= \
    -Dsurefire.failIfNoSpecifiedTests=false "$@"
