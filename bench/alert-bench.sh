#!/bin/sh
# Alert evaluation at a fleet's size (docs/performance.md#alert-evaluation): the built-in pack over
# synthetic measurements of N sources (default 1000) of the standard preset, in-process: CPU per
# minute of evaluation healthy and in trouble, heap per alert state, and condition-to-webhook latency
# at for: 0 (io.pgharvest.alert.evaluation.AlertEvaluationBench, a main() of the test sources, so no
# test run picks it up). Usage: bench/alert-bench.sh [sources]
set -e
cd "$(dirname "$0")/.."
nice -n 19 ./mvnw -B -q -o test-compile
./mvnw -B -q -o dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt >/dev/null
CP="target/test-classes:target/classes:$(cat target/bench-classpath.txt)"
exec nice -n 19 "${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java" -Xmx1g -cp "$CP" \
    io.pgharvest.alert.evaluation.AlertEvaluationBench "$@"
