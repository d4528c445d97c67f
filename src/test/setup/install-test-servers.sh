#!/usr/bin/env bash
# Installs the servers the test suite talks to, when they are missing, from Debian's packages.
# Maven runs it once before the tests (phase process-test-classes, skipped with -DskipTests);
# tests never install anything themselves, and a test whose server is missing fails.
#
#   program            Debian package
#   promtool           prometheus       (reference parser of the Prometheus exposition format)
#   pgbouncer          pgbouncer        (admin console metrics)
#   pgpool             pgpool2          (pgpool's SHOW commands: pool nodes, processes)
#   openssl            openssl          (self-signed certificate of the TLS console test)
#   patroni            patroni          (Patroni cluster members, REST API)
#   etcd               etcd-server      (Patroni's DCS, etcd v3)
#   prometheus         prometheus       (remote-write receiver, dashboard and alert rule checks)
#   victoria-metrics   victoria-metrics (remote-write receiver)
#   prometheus-alertmanager prometheus-alertmanager (the alert receivers' Alertmanager)
#   chromium           chromium         (headless browser of the console tests)
#   chromedriver       chromium-driver  (WebDriver for that browser, driven by Selenium)
#
# Run it by hand as root to prepare a machine: bash src/test/setup/install-test-servers.sh
set -euo pipefail

declare -A packages=(
  [promtool]=prometheus
  [pgbouncer]=pgbouncer
  [pgpool]=pgpool2
  [openssl]=openssl
  [patroni]=patroni
  [etcd]=etcd-server
  [prometheus]=prometheus
  [victoria-metrics]=victoria-metrics
  [prometheus-alertmanager]=prometheus-alertmanager
  [chromium]=chromium
  [chromedriver]=chromium-driver
)

missing=()
for program in "${!packages[@]}"; do
  if ! PATH="$PATH:/usr/sbin:/usr/local/sbin" command -v "$program" >/dev/null 2>&1; then
    missing+=("${packages[$program]}")
  fi
done
if ((${#missing[@]} == 0)); then
  echo "test servers: all present"
  exit 0
fi

echo "test servers: installing ${missing[*]}"
if [[ $(id -u) != 0 ]]; then
  echo "test servers: missing ${missing[*]} and not root; install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi

# Package scripts must not start system-wide services (pgbouncer on 6432, pgpool on 5433/9898,
# prometheus on 9090, victoria-metrics on 8428, alertmanager on 9093, etcd on 2379, patroni):
# the tests start their own instances on free ports. policy-rc.d 101 = "action not allowed".
policy=/usr/sbin/policy-rc.d
created_policy=""
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  created_policy=yes
fi
trap '[[ -n $created_policy ]] && rm -f "$policy"' EXIT

export DEBIAN_FRONTEND=noninteractive
apt_get() { apt-get -o DPkg::Lock::Timeout=600 -q "$@"; }
apt_get update
apt_get install -y --no-install-recommends "${missing[@]}"

for program in "${!packages[@]}"; do
  PATH="$PATH:/usr/sbin:/usr/local/sbin" command -v "$program" >/dev/null \
    || { echo "test servers: $program still missing after installing ${packages[$program]}" >&2; exit 1; }
done
echo "test servers: installed ${missing[*]}"
