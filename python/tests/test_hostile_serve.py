"""The hostile-script suite (tests/hostile/cases) through `bashkit serve`: while one tenant runs each script, a
second tenant's `echo ok` keeps answering, the first tenant's session answers `echo ok` after each script, and
the server survives with its peak memory bounded. One script per category here (HOSTILE_FULL=1: all of them);
tests/hostile/hostile_test.cpp runs every script through the C++ API, the CLI and this module."""
import json
import os
import pathlib
import subprocess
import threading
import time
import urllib.request

import pytest

CASES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "hostile" / "cases"
FULL = os.environ.get("HOSTILE_FULL", "0") not in ("", "0")
TIMEOUT = 3.0 if FULL else 1.0  # each script's timeout_seconds
SLACK = 2.5         # what hostile_test.cpp allows beyond it
PROBE_LIMIT = 1.0   # the second tenant's answer time


def scripts():
    out = []
    for f in sorted(CASES.glob("*.sh")):
        taken = 0
        name, text = None, []
        for line in f.read_text().splitlines() + ["#### <end>"]:
            if line.startswith("#%"):
                continue
            if line.startswith("#### "):
                if name is not None and (FULL or taken < 1):
                    out.append((f"{f.stem}/{name}", "\n".join(text) + "\n"))
                    taken += 1
                name, text = line[5:], []
            elif name is not None:
                text.append(line)
    return out


class Client:
    def __init__(self, endpoint, token):
        self.endpoint, self.token = endpoint, token

    def post(self, path, body, timeout):
        req = urllib.request.Request(self.endpoint + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Authorization": "Bearer " + self.token,
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read())

    def session(self):
        return self.post("/v1/sessions", {}, 10)["id"]

    def exec(self, sid, command, timeout_seconds, http_timeout=30):
        return self.post(f"/v1/sessions/{sid}/exec", {"command": command, "timeout_seconds": timeout_seconds},
                         http_timeout)


@pytest.fixture
def server():
    program = os.environ.get("BASHKIT_SERVE")
    if not program or not os.path.exists(program):
        pytest.skip("BASHKIT_SERVE is not set to the bashkit-serve program")
    env = dict(os.environ, BASHKIT_SERVE_TOKENS="tenant-a,tenant-b")
    p = subprocess.Popen([program, "--port", "0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True)
    try:
        line = p.stdout.readline()
        assert line.startswith("bashkit serve: listening on "), line
        yield p, line.split()[-1]
    finally:
        p.terminate()
        p.wait(timeout=30)


def peak_rss_mib(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) // 1024
    return 0


def cpu_seconds(pid):
    # utime + stime of the whole server (the probing tenant's share is small).
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_hostile_scripts_through_serve(server):
    proc, endpoint = server
    a, b = Client(endpoint, "tenant-a"), Client(endpoint, "tenant-b")
    sa, sb = a.session(), b.session()
    probes, failures = [], []
    done = threading.Event()

    def probe():
        while not done.is_set():
            t0 = time.monotonic()
            try:
                ok = b.exec(sb, "echo ok", 5, http_timeout=10)["stdout"] == "ok\n"
            except Exception as e:  # noqa: BLE001 - any failure of the other tenant is the finding
                ok = False
                failures.append(f"tenant b: {e}")
            probes.append((time.monotonic() - t0, ok))
            time.sleep(0.05)

    t = threading.Thread(target=probe)
    t.start()
    try:
        for sid, text in scripts():
            t0, c0 = time.monotonic(), cpu_seconds(proc.pid)
            try:
                r = a.exec(sa, text, TIMEOUT, http_timeout=60)
            except Exception as e:  # noqa: BLE001
                failures.append(f"{sid}: the exec failed: {e}")
                sa = a.session()
                continue
            # On a shared machine the wall clock mostly measures waiting for a core: judged on the smaller of
            # the wall time and the server's CPU time, as hostile_test.cpp does.
            wall, cpu = time.monotonic() - t0, cpu_seconds(proc.pid) - c0
            if min(wall, cpu) > TIMEOUT + SLACK:
                failures.append(f"{sid}: took {wall:.1f} s ({cpu:.1f} s of CPU), exit {r.get('exit_code')}")
            again = a.exec(sa, "echo ok", 5)
            if again["stdout"] != "ok\n":
                failures.append(f"{sid}: the session did not answer echo ok: {again}")
    finally:
        done.set()
        t.join()
    assert proc.poll() is None, "the server died"
    slow = [round(d, 2) for d, ok in probes if d > PROBE_LIMIT or not ok]
    assert not failures, failures
    assert probes and not slow, f"tenant b's echo ok: {len(slow)} of {len(probes)} slow or wrong: {slow[:10]}"
    # Sessions have the default 1 GiB budget: the server stays under 1.2 GiB.
    assert peak_rss_mib(proc.pid) < 1229
