#!/bin/sh
# A log flood (200 MB in 60 s) read through SQL within the 8 MiB budget per collection, one tick a
# second with a fast metric after the log_* metrics: no tick may overrun (serverlog.LogFloodBenchmark;
# figures in docs/performance.md). Options: -Dpgharvest.bench.log-format=csvlog|jsonlog|stderr,
# -Dpgharvest.bench.flood-mb=N, -Dpgharvest.bench.flood-seconds=N.
cd "$(dirname "$0")/.." || exit 1
exec nice -n 19 ./mvnw -B -q test -Dtest=LogFloodBenchmark -Dtest.excludedGroups= \
    -Dsurefire.failIfNoSpecifiedTests=false "$@"
