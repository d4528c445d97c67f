"""What the bench scripts share: /proc readings, PostgreSQL clusters run as `postgres` from Debian's
binaries, collector processes, and pgharvest's start and its Prometheus meters.

Used by pgwatch-side-by-side.py and query-insights-bench.py (both run as root).
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

TOKEN = "bench-token-0123456789abcdef"
CLK_TCK = os.sysconf("SC_CLK_TCK")

TAG = ["bench"]  # the prefix of every log line: set_tag() names the script


def set_tag(tag):
    TAG[0] = tag


def log(msg):
    print(f"[{TAG[0]} {datetime.now(timezone.utc):%H:%M:%S}] {msg}", flush=True)


def load_average():
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


# ---------------------------------------------------------------------------------------------
# /proc readings

def proc_stat(pid):
    """(ppid, utime+stime, cutime+cstime) in clock ticks, or None when the process is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text[text.rindex(")") + 2:].split()
    # fields[0] is state (field 3); utime is field 14 -> index 11
    return int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])


def rss_kb(pid):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except FileNotFoundError:
        pass
    return None


def tree_cpu_ticks(root_pid):
    """CPU of a postmaster and all its children, including children that already ended.

    The postmaster reaps its backends, so their CPU moves into its cutime/cstime when they exit:
    live children + the postmaster's own + its reaped children's is cumulative, and a window's
    delta counts the sessions that came and went inside it (pgwatch reconnects every 30 s).
    """
    own = proc_stat(root_pid)
    if own is None:
        raise RuntimeError(f"postmaster {root_pid} is gone")
    total = own[1] + own[2]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = proc_stat(int(entry))
            if st is not None and st[0] == root_pid:
                total += st[1]
    return total


# ---------------------------------------------------------------------------------------------
# PostgreSQL clusters (Debian binaries, run as `postgres`)

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, name, bin_dir, root, settings):
        self.name = name
        self.bin = Path(bin_dir)
        self.dir = root / name
        self.port = free_port()
        self.dir.mkdir()
        shutil.chown(self.dir, "postgres", "postgres")
        data = self.dir / "data"
        self._as_postgres([self.bin / "initdb", "-D", data, "-U", "postgres", "-A", "trust",
                           "--no-sync", "-E", "UTF8", "--locale=C"], quiet=True)
        conf = {"listen_addresses": "'127.0.0.1'", "port": str(self.port),
                "unix_socket_directories": f"'{self.dir}'", "fsync": "off",
                "synchronous_commit": "off", "full_page_writes": "off", **settings}
        with open(data / "postgresql.conf", "a") as f:
            for k, v in conf.items():
                f.write(f"{k} = {v}\n")
        self._as_postgres([self.bin / "pg_ctl", "-D", data, "-l", self.dir / "server.log", "-w",
                           "-t", "120", "start"], quiet=True)
        self.postmaster = int((data / "postmaster.pid").read_text().splitlines()[0])
        self.data = data

    def _as_postgres(self, cmd, quiet=False):
        subprocess.run(["runuser", "-u", "postgres", "--"] + [str(c) for c in cmd], check=True,
                       cwd=self.dir, stdout=subprocess.DEVNULL if quiet else None)

    def url(self, db):
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def sql(self, sql, db="postgres"):
        out = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
                              "-p", str(self.port), "-U", "postgres", "-d", db, "-c", sql],
                             check=True, capture_output=True, text=True)
        return out.stdout.strip()

    def cpu_ticks(self):
        return tree_cpu_ticks(self.postmaster)

    def limit_cpu(self, cpus):
        """Starves the cluster of CPU: its postmaster and every process it forks from now on (and
        those it runs already) share `cpus` processors' worth of time (the kernel's CFS quota, a cgroup
        of its own). The saturated monitored server of issue 51 on demand, whatever else the machine
        runs. Needs root and the cgroup cpu controller (v1 or v2)."""
        period = 100_000
        quota = int(cpus * period)
        v1 = Path("/sys/fs/cgroup/cpu")
        if (v1 / "cgroup.procs").exists():
            group = v1 / f"bench-{self.name}-{self.port}"
            group.mkdir(exist_ok=True)
            (group / "cpu.cfs_period_us").write_text(str(period))
            (group / "cpu.cfs_quota_us").write_text(str(quota))
        else:
            group = Path("/sys/fs/cgroup") / f"bench-{self.name}-{self.port}"
            group.mkdir(exist_ok=True)
            (group / "cpu.max").write_text(f"{quota} {period}")
        pids = [self.postmaster] + [int(e) for e in os.listdir("/proc") if e.isdigit()
                                    and (proc_stat(int(e)) or (None,))[0] == self.postmaster]
        for pid in pids:
            try:
                (group / "cgroup.procs").write_text(str(pid))
            except OSError:
                pass  # a child that ended meanwhile
        self.cgroup = group

    def stop(self):
        subprocess.run(["runuser", "-u", "postgres", "--", str(self.bin / "pg_ctl"), "-D", str(self.data),
                        "-m", "immediate", "-w", "stop"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        group = getattr(self, "cgroup", None)
        if group is not None:
            for _ in range(50):  # the group can be removed once its last process has gone
                try:
                    group.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)


class Collector:
    def __init__(self, side, popen, log_path):
        self.side = side
        self.popen = popen
        self.log_path = log_path

    @property
    def pid(self):
        return self.popen.pid

    def require_alive(self):
        if self.popen.poll() is not None:
            tail = "\n".join(Path(self.log_path).read_text(errors="replace").splitlines()[-40:])
            raise RuntimeError(f"{self.side} exited with code {self.popen.returncode}; last lines of "
                               f"{self.log_path}:\n{tail}")

    def stop(self):
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(30)
            except subprocess.TimeoutExpired:
                log(f"{self.side} did not stop within 30 s; killing it")
                self.popen.kill()
                self.popen.wait(10)


def launch_pgharvest(java, jvm_options, jar, aot_cache, work, arguments, wait_ready=True):
    """Starts pgharvest in `work` with the bench token on a free port and, unless `wait_ready` is
    false, waits until it is ready (`await_ready`); the Collector has `.port`. `arguments` are its
    --key=value settings beyond port, data dir and token."""
    log_path = work / "pgharvest.log"
    port = free_port()
    # With an AOT cache, AOTMode=on: a cache the JVM refuses (another JDK build, a jar rebuilt since
    # the training) stops the run instead of measuring a start without it.
    aot = [f"-XX:AOTCache={aot_cache}", "-XX:AOTMode=on"] if aot_cache else []
    cmd = [java, f"@{jvm_options}", *aot, "-jar", jar,
           f"--server.port={port}", "--server.address=127.0.0.1",
           f"--pgharvest.data-dir={work / 'data'}", f"--pgharvest.api.token={TOKEN}",
           "--spring.main.banner-mode=off", *arguments]
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS")}
    popen = subprocess.Popen(cmd, cwd=work, env=env, stdout=open(log_path, "w"), stderr=subprocess.STDOUT)
    collector = Collector("pgharvest", popen, log_path)
    collector.port = port
    if wait_ready:
        await_ready(collector)
    return collector


def is_ready(collector):
    """Whether pgharvest's readiness probe answers 200 (its web layer is up and it collects)."""
    collector.require_alive()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{collector.port}/actuator/health/readiness", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def await_ready(collector, timeout=180):
    """Waits until pgharvest is ready; stops it and raises when it is not within `timeout` seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if is_ready(collector):
            return
        time.sleep(0.5)
    collector.stop()
    raise RuntimeError(f"pgharvest was not ready within {timeout} s")


def pgharvest_get(collector, path, timeout=10):
    """GET a path of pgharvest's with the bench token; the body as text."""
    req = urllib.request.Request(f"http://127.0.0.1:{collector.port}{path}",
                                 headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.read().decode()


def pgharvest_meters(collector, only_totals=True):
    """pgharvest's own meters (pgharvest_*) summed over labels; only the *_total counters unless
    told otherwise; {} when unreachable."""
    try:
        text = pgharvest_get(collector, "/actuator/prometheus")
    except OSError:
        return {}
    sums = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = re.match(r"^(pgharvest_[a-z_]+?)(\{[^}]*\})? ([0-9.eE+-]+)$", line)
        if m and (m.group(1).endswith("_total") or not only_totals):
            sums[m.group(1)] = sums.get(m.group(1), 0) + float(m.group(3))
    return sums


def find_java():
    best = None
    for jdk in Path("/usr/lib/jvm").glob("*"):
        java = jdk / "bin" / "java"
        m = re.search(r"(\d+)", jdk.name.replace("1.17", "17"))
        if java.is_file() and m and int(m.group(1)) >= 21 and (best is None or int(m.group(1)) > best[0]):
            best = (int(m.group(1)), java)
    return str(best[1]) if best else None
