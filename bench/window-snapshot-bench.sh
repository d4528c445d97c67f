#!/bin/sh
# The recent window's snapshot: its size and write/restore time at 60 and 300 sources (an hour of
# the standard preset's series shape at 60 s and at 10 s), written to a temp directory
# (docs/performance.md#the-window-snapshot). Needs a test-compiled tree: ./mvnw -q test-compile
set -e
cd "$(dirname "$0")/.."
./mvnw -q -o dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt >/dev/null
CP="target/test-classes:target/classes:$(cat target/bench-classpath.txt)"
for sources in 60 300; do
  for interval in 60 10; do
    "${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java" -Xmx1g -cp "$CP" io.pgharvest.window.WindowSnapshotBench "$sources" "$interval"
  done
done
