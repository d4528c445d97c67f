#!/bin/bash
# The RSS of an empty application on pgharvest's stack, idle (README.md).
# Usage, from the project's root after ./mvnw -B package:
#   bench/stack-floor/measure.sh [path/to/java]
# Builds bench/stack-floor with the project's Maven wrapper, starts it with config/jvm.options,
# waits for Spring's "Started" line and 30 s more, prints VmRSS and the classes loaded, stops it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
java=${1:-}
if [ -z "$java" ]; then
    jdk25=$(ls -d /usr/lib/jvm/*25* 2>/dev/null | head -1 || true)
    [ -n "$jdk25" ] || { echo "no JDK 25 in /usr/lib/jvm: pass the java to measure with"; exit 2; }
    java=$jdk25/bin/java
fi
jdk=$(dirname "$(dirname "$java")")
JAVA_HOME=$jdk "$root/mvnw" -B -q -f "$root/bench/stack-floor/pom.xml" package -DskipTests
jar=$root/bench/stack-floor/target/stack-floor.jar
log=$(mktemp)
"$java" @"$root/config/jvm.options" -jar "$jar" --server.port=0 > "$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 240); do
    grep -q 'Started ' "$log" && break
    kill -0 $pid 2>/dev/null || { cat "$log"; exit 1; }
    sleep 0.5
done
grep -q 'Started ' "$log" || { echo "no Started line within 120 s"; cat "$log"; exit 1; }
sleep 30
rss_kb=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
classes=$("$jdk/bin/jcmd" $pid VM.classes | wc -l)
echo "empty application on pgharvest's stack: RSS $((rss_kb / 1024)) MB, about $classes classes loaded, 30 s after start-up"
