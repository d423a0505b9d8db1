#!/usr/bin/env python3
"""Load test of `bashkit serve` replicas on loopback (docs/operations.md has the figures it gave).

Starts two `bashkit serve` processes sharing one temporary base dir, then for each concurrency C (1, 8 and 64
by default) drives C sessions at once, half made on each replica, each running M commands; reports sessions/s
(sessions created, run and deleted per second), commands/s, the p50/p99 latency of an exec, and the replicas'
memory (RSS) and CPU time per session. With --kill, a last round kills one replica (SIGKILL) midway and
reports how long its sessions waited before the survivor reopened them, and whether any file of a completed
command was lost.

  bench/serve_load.py build/release/cli/bashkit [--commands 20] [--concurrency 1,8,64] [--kill]

Not run in CI (tests/sandbox/replica_process_test.cpp is the bounded CI version of the kill scenario). The
client is Python threads on the same machine as the servers: on a small machine it takes CPU from them.
"""
import argparse
import http.client
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

TOKEN = "load-token"
# A typical small agent command: write a file, read it back, list, keep a variable.
COMMAND = 'echo "line $i" >> notes.txt; i=$((i+1)); wc -l < notes.txt; ls | head -n 3 >/dev/null; echo "$PWD"'


class Replica:
    def __init__(self, serve, base, rid, lease, unload_idle=0):
        env = dict(os.environ, BASHKIT_SERVE_TOKENS=TOKEN)
        self.proc = subprocess.Popen([serve, "serve", "--port", "0", "--base-dir", base, "--replica-id", rid,
                                      "--lease-seconds", str(lease), "--unload-idle", str(unload_idle),
                                      "--max-sessions", "10000"],
                                     stdout=subprocess.PIPE, env=env, text=True)
        line = self.proc.stdout.readline()
        self.port = int(line.rsplit(":", 1)[1])
        self.rid = rid

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()


def request(port, method, path, body=None, timeout=60):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request(method, path, body=json.dumps(body) if body is not None else None,
                  headers={"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"})
        r = c.getresponse()
        data = r.read()
        return r.status, (json.loads(data) if data and r.getheader("Content-Type", "").startswith("application/json") else {})
    finally:
        c.close()


def round_of(replicas, concurrency, commands, rss0, kill_at=None):
    latencies, errors, lock = [], [], threading.Lock()
    ports = {r.rid: r.port for r in replicas}
    done = [0]
    waits = []
    barrier = threading.Barrier(concurrency + 1)
    killed = threading.Event()
    lost = []

    def session(n):
        port = replicas[n % 2].port
        st, body = request(port, "POST", "/v1/sessions", {})
        if st != 201:
            with lock:
                errors.append(f"create: {st} {body}")
            barrier.wait()
            return
        sid = body["id"]
        for k in range(commands):
            waited_from = None
            while True:
                t = time.perf_counter()
                try:
                    st, body = request(port, "POST", f"/v1/sessions/{sid}/exec", {"command": COMMAND})
                except OSError:
                    port = replicas[1].port if port == replicas[0].port else replicas[0].port
                    waited_from = waited_from or t
                    continue
                if st == 409:
                    waited_from = waited_from or t
                    owner = body.get("owner")
                    if owner in ports and not (killed.is_set() and owner == replicas[0].rid):
                        port = ports[owner]
                    else:
                        time.sleep(0.05)
                    continue
                break
            lat = time.perf_counter() - t
            with lock:
                if st != 200:
                    errors.append(f"exec: {st} {body}")
                elif waited_from is None:
                    latencies.append(lat)
                else:
                    waits.append(time.perf_counter() - waited_from)
                done[0] += 1
            if st == 200 and int(body["stdout"].split()[0]) < k + 1:
                lost.append(sid)
        barrier.wait()  # all sessions open: the replicas' memory is measured now
        barrier.wait()
        request(port, "DELETE", f"/v1/sessions/{sid}")

    cpu0 = sum(r.cpu_seconds() for r in replicas)
    threads = [threading.Thread(target=session, args=(n,)) for n in range(concurrency)]
    t0 = time.perf_counter()
    for th in threads:
        th.start()
    if kill_at is not None:
        while done[0] < kill_at:
            time.sleep(0.002)
        killed.set()
        replicas[0].kill()
    barrier.wait()
    t_run = time.perf_counter() - t0
    alive = [r for r in replicas if r.proc.poll() is None]
    rss1 = sum(r.rss_kib() for r in alive)
    cpu1 = sum(r.cpu_seconds() for r in alive)
    barrier.wait()
    for th in threads:
        th.join()
    t_all = time.perf_counter() - t0
    lat = sorted(latencies)
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000 if lat else float("nan")
    return {
        "concurrency": concurrency,
        "sessions_per_s": concurrency / t_all,
        "commands_per_s": concurrency * commands / t_run,
        "p50_ms": p(0.50),
        "p99_ms": p(0.99),
        # Against the replicas' RSS when they started: includes what earlier rounds left in the heap
        # (an overestimate, the safe side for sizing).
        "rss_per_session_kib": (rss1 - rss0) / concurrency if kill_at is None else float("nan"),
        "rss_total_kib": rss1,
        "cpu_ms_per_command": (cpu1 - cpu0) * 1000 / (concurrency * commands) if kill_at is None else float("nan"),
        "errors": errors,
        "takeover_wait_s": (statistics.median(waits), max(waits)) if waits else None,
        "lost": sorted(set(lost)),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bashkit", help="the bashkit program (bashkit-serve beside it)")
    ap.add_argument("--commands", type=int, default=20)
    ap.add_argument("--concurrency", default="1,8,64")
    ap.add_argument("--lease", type=float, default=2.0)
    ap.add_argument("--kill", action="store_true", help="also a round that kills a replica midway")
    a = ap.parse_args()
    base = tempfile.mkdtemp(prefix="bashkit-serve-load-")
    replicas = []
    try:
        replicas = [Replica(a.bashkit, base, "load-a", a.lease), Replica(a.bashkit, base, "load-b", a.lease)]
        print(f"two replicas on 127.0.0.1:{replicas[0].port} and :{replicas[1].port}, base dir {base}, "
              f"{a.commands} commands per session, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
        print("| concurrent sessions | sessions/s | commands/s | exec p50 ms | exec p99 ms | RSS KiB/session | CPU ms/command |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        time.sleep(0.2)
        rss0 = sum(r.rss_kib() for r in replicas)
        for c in [int(x) for x in a.concurrency.split(",")]:
            r = round_of(replicas, c, a.commands, rss0)
            print(f"| {c} | {r['sessions_per_s']:.1f} | {r['commands_per_s']:.0f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} "
                  f"| {r['rss_per_session_kib']:.0f} | {r['cpu_ms_per_command']:.2f} |")
            for e in r["errors"][:5]:
                print("  error:", e)
        if a.kill:
            c = 8
            r = round_of(replicas, c, a.commands, rss0, kill_at=c * a.commands // 2)
            w = r["takeover_wait_s"]
            print(f"kill round: {c} sessions, replica load-a killed after {c * a.commands // 2} commands; "
                  f"{len(r['errors'])} errors, sessions with a lost command: {len(r['lost'])}; "
                  + (f"a session of the dead replica waited {w[0]:.2f} s (median), {w[1]:.2f} s (max) for the survivor"
                     if w else "no session waited"))
    finally:
        for r in replicas:
            r.stop()
        shutil.rmtree(base, ignore_errors=True)
    reopen_round(a.bashkit, a.lease)
    save_round(a.bashkit)


def save_round(serve, n=200):
    """What saving the shell state costs an exec: one replica in memory (no --base-dir, nothing saved)
    against one on a base dir, n sequential execs that change the state (so it is rewritten every time) and
    n that do not (serialized and hashed, not written), medians."""
    env = dict(os.environ, BASHKIT_SERVE_TOKENS=TOKEN)
    base = tempfile.mkdtemp(prefix="bashkit-serve-save-")
    results = {}
    try:
        for label, extra in (("in memory", []), ("base dir", ["--base-dir", base]),
                             ("base dir, --sync-writes", ["--base-dir", base, "--sync-writes"])):
            p = subprocess.Popen([serve, "serve", "--port", "0"] + extra, stdout=subprocess.PIPE, env=env, text=True)
            try:
                port = int(p.stdout.readline().rsplit(":", 1)[1])
                st, body = request(port, "POST", "/v1/sessions", {})
                sid = body["id"]
                request(port, "POST", f"/v1/sessions/{sid}/exec",
                        {"command": "for i in $(seq 100); do eval \"v$i=$i\"; done; f() { :; }"})
                for what, cmd in (("changing", "n=$((n+1))"), ("unchanged", "true")):
                    lat = []
                    for _ in range(n):
                        t = time.perf_counter()
                        request(port, "POST", f"/v1/sessions/{sid}/exec", {"command": cmd})
                        lat.append((time.perf_counter() - t) * 1000)
                    results[(label, what)] = statistics.median(lat)
            finally:
                p.terminate()
                p.wait()
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"save round ({n} sequential execs each, 100 variables in the state, medians, ms):")
    for label in ("in memory", "base dir", "base dir, --sync-writes"):
        print(f"  {label}: state changed {results[(label, 'changing')]:.2f}, unchanged {results[(label, 'unchanged')]:.2f}")


def reopen_round(serve, lease, sessions=16):
    """What moving a session costs: sessions made on A, let go by A (--unload-idle 1), then one exec each on
    B, which reopens it (meta.json, state.json, the tree), against a second exec on B (warm)."""
    base = tempfile.mkdtemp(prefix="bashkit-serve-reopen-")
    reps = []
    try:
        reps = [Replica(serve, base, "reopen-a", lease, unload_idle=1), Replica(serve, base, "reopen-b", lease)]
        ids = []
        for _ in range(sessions):
            st, body = request(reps[0].port, "POST", "/v1/sessions", {})
            ids.append(body["id"])
            request(reps[0].port, "POST", f"/v1/sessions/{body['id']}/exec",
                    {"command": "for i in $(seq 50); do eval \"v$i=$i\"; done; f() { :; }; cd /tmp; echo x > /workspace/f"})
        time.sleep(2.5)  # A lets them go
        cold, warm = [], []
        for sid in ids:
            for out in (cold, warm):
                t = time.perf_counter()
                st, body = request(reps[1].port, "POST", f"/v1/sessions/{sid}/exec", {"command": "echo $v50; pwd"})
                out.append((time.perf_counter() - t) * 1000)
                if st != 200 or body["stdout"] != "50\n/tmp\n":
                    print("reopen round: unexpected", st, body)
        print(f"reopen round: {sessions} sessions let go by one replica and reopened by the other: exec with reopen "
              f"{statistics.median(cold):.1f} ms (median), the next exec {statistics.median(warm):.1f} ms")
    finally:
        for r in reps:
            r.stop()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
