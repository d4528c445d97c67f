#!/bin/sh
# Alert evaluation's cost: the built-in pack on 1,000 sources of synthetic standard-preset rows, CPU
# per minute of evaluation (healthy fleet, and every source in trouble) and heap per alert state
# (docs/performance.md#alert-evaluation). Not part of the test run. Needs a test-compiled tree:
# ./mvnw -q test-compile
set -e
cd "$(dirname "$0")/.."
./mvnw -q -o dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt >/dev/null
CP="target/test-classes:target/classes:$(cat target/bench-classpath.txt)"
"${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java" -Xmx1g -cp "$CP" \
  io.pgharvest.alert.evaluation.AlertEvaluationBench "${1:-1000}"
