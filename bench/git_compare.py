#!/usr/bin/env python3
"""bashkit's in-process git against the real git, side by side in one run (bench/README.md has the figures).

Workloads:
  clone   `git clone http://127.0.0.1:PORT/repo.git r` of a generated repository (about 50 MB packed: a few
          thousand commits of text files, binary-ish files and a few large blobs; the same bytes every time),
          served over smart HTTP on loopback by the real `git http-backend` (a small CGI server in this
          script; it speaks protocol v2 when the client asks). bashkit clones into its in-memory tree and
          into a host folder (--mount); the real git into a host folder.
  status  `git status` and `git status --porcelain` on a committed 20,000-file tree (nested directories,
          a .gitignore, ignored build output) with files then modified, added and deleted; bashkit reads the
          same host folder (--mount) as the real git, and also its own in-memory copy of the tree (committed
          by bashkit, timed inside one bashkit process with `time`).

Each workload runs its contenders in turn, run after run (alternating), and prints the medians of wall-clock
time and of CPU time (user + system of the process and the children it waited for: the real git's
index-pack included; the HTTP server is this process and counts for nobody), and bashkit / git.

  bench/git_compare.py [path/to/bashkit] [--runs N] [--only clone|status] [--keep DIR]

--keep DIR keeps the fixtures in DIR (made once; later runs reuse them). Needs git on PATH.
"""
import argparse
import http.server
import os
import random
import shutil
import socketserver
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ENV = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/nonexistent",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "A U Thor",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "A U Thor",
    "GIT_COMMITTER_EMAIL": "author@example.com",
    "GIT_AUTHOR_DATE": "@1700000000 +0000",
    "GIT_COMMITTER_DATE": "@1700000000 +0000",
    "LC_ALL": "C",
    "TZ": "UTC",
}

WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau "
         "upsilon phi chi psi omega return value index buffer table count offset length state error begin "
         "end while for if else struct static const int char void size_t").split()


# bashkit's shell does not inherit the CLI's environment: the script exports the same.
EXPORTS = "export " + " ".join(f"{k}='{v}'" for k, v in ENV.items() if k.startswith("GIT_")) + "; "


def git(*args, cwd=None, input=None):
    return subprocess.run(["git", *args], cwd=cwd, env=ENV, input=input, check=True, stdout=subprocess.PIPE)


# ---------------------------------------------------------------------------------------------------------
# Fixtures

def text_file(rng, lines):
    return "".join(" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))) + "\n" for _ in range(lines))


def binaryish(rng, size):
    # Random bytes with runs of repeated bytes: zlib gets it to about 60%.
    out = bytearray()
    while len(out) < size:
        if rng.random() < 0.5:
            out += rng.randbytes(rng.randint(16, 256))
        else:
            out += bytes([rng.randrange(256)]) * rng.randint(16, 256)
    return bytes(out[:size])


def make_big_repo(path, commits=3000):
    """A bare repository of about 50 MB packed, made with git fast-import from a seeded generator."""
    rng = random.Random(20261205)
    git("init", "-q", "--bare", "-b", "main", path)
    texts = {f"src/d{i % 20:02d}/file{i:03d}.txt": text_file(rng, rng.randint(40, 300)) for i in range(400)}
    stream = bytearray()

    def blob(path_, data):
        if isinstance(data, str):
            data = data.encode()
        stream.extend(b"M 100644 inline %s\ndata %d\n" % (path_.encode(), len(data)))
        stream.extend(data)
        stream.extend(b"\n")

    t0 = 1600000000
    for c in range(commits):
        msg = f"commit {c}: " + " ".join(rng.choice(WORDS) for _ in range(6)) + "\n"
        stream.extend(b"commit refs/heads/main\n")
        when = t0 + c * 3600
        stream.extend(b"author A U Thor <author@example.com> %d +0000\n" % when)
        stream.extend(b"committer A U Thor <author@example.com> %d +0000\n" % when)
        stream.extend(b"data %d\n%s" % (len(msg.encode()), msg.encode()))
        if c == 0:
            for p, t in texts.items():
                blob(p, t)
        else:
            for _ in range(rng.randint(1, 3)):
                p = rng.choice(list(texts))
                lines = texts[p].splitlines(keepends=True)
                at = rng.randrange(len(lines))
                lines[at:at + rng.randint(0, 3)] = text_file(rng, rng.randint(1, 4)).splitlines(keepends=True)
                texts[p] = "".join(lines)
                blob(p, texts[p])
        if c % 5 == 0:
            blob(f"bin/b{rng.randrange(150):03d}.dat", binaryish(rng, rng.randint(20000, 60000)))
        if c % 300 == 150:
            blob(f"assets/large{c // 300}.bin", rng.randbytes(7 << 19))
        if c % 300 == 299:
            stream.extend(b"tag v%d\nfrom refs/heads/main\ntagger A U Thor <author@example.com> %d +0000\ndata 4\nv%02d\n"
                          % (c // 300, when, c // 300))
    git("fast-import", "--quiet", cwd=path, input=bytes(stream))
    git("-c", "pack.threads=2", "repack", "-q", "-a", "-d", "-f", "--window=10", "--depth=50", cwd=path)
    git("update-server-info", cwd=path)


def make_status_tree(path):
    """A committed 20,000-file tree, then 200 files modified, 100 added, 100 deleted. Returns a shell script
    that makes the same changes (for bashkit's in-memory copy)."""
    rng = random.Random(7)
    os.makedirs(path)
    git("init", "-q", "-b", "main", path)
    files = []
    for a in range(20):
        for b in range(10):
            d = os.path.join(path, f"pkg{a:02d}", f"mod{b}")
            os.makedirs(d)
            for f in range(100):
                rel = f"pkg{a:02d}/mod{b}/f{f:03d}.{'c' if f % 3 else 'h'}"
                with open(os.path.join(path, rel), "w") as fh:
                    fh.write(text_file(rng, rng.randint(5, 60)))
                files.append(rel)
    with open(os.path.join(path, ".gitignore"), "w") as fh:
        fh.write("*.o\nbuild/\n/tmp-*\n")
    git("add", "-A", cwd=path)
    git("commit", "-q", "-m", "tree", cwd=path)
    script = []
    for rel in rng.sample(files, 400)[:200]:
        data = text_file(rng, 3)
        with open(os.path.join(path, rel), "a") as fh:
            fh.write(data)
        script.append(f"printf '%s' '{data}' >> {rel}")
    gone = [r for r in rng.sample(files, 300) if os.path.exists(os.path.join(path, r))][:100]
    for rel in gone:
        os.unlink(os.path.join(path, rel))
        script.append(f"rm -f {rel}")
    os.makedirs(os.path.join(path, "newpkg"), exist_ok=True)
    os.makedirs(os.path.join(path, "build"), exist_ok=True)
    for i in range(100):
        rel = f"newpkg/n{i:03d}.c" if i % 2 else f"pkg{i % 20:02d}/mod{i % 10}/new{i:03d}.c"
        data = text_file(rng, 4)
        with open(os.path.join(path, rel), "w") as fh:
            fh.write(data)
        script.append(f"mkdir -p {os.path.dirname(rel)}; printf '%s' '{data}' > {rel}")
        obj = f"pkg{i % 20:02d}/mod{i % 10}/x{i:03d}.o"
        with open(os.path.join(path, obj), "w") as fh:
            fh.write("obj\n")
        with open(os.path.join(path, "build", f"out{i}.bin"), "w") as fh:
            fh.write("obj\n")
        script.append(f"echo obj > {obj}; mkdir -p build; echo obj > build/out{i}.bin")
    # Settle the index's stat data as a first `git status` would (and so that the racy-clean check of
    # neither side hashes every file).
    git("status", "--porcelain", cwd=path)
    return "\n".join(script) + "\n"


# ---------------------------------------------------------------------------------------------------------
# A smart-HTTP server: the real `git http-backend` as a CGI program.

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # the body ends with the connection
    root = ""

    def log_message(self, *a):
        pass

    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = bytearray()
            while True:
                n = int(self.rfile.readline().strip().split(b";")[0], 16)
                if n == 0:
                    self.rfile.readline()
                    return bytes(out)
                out += self.rfile.read(n)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def cgi(self, method):
        path, _, query = self.path.partition("?")
        data = self.body() if method == "POST" else b""
        env = dict(ENV, GIT_PROJECT_ROOT=self.root, GIT_HTTP_EXPORT_ALL="1", PATH_INFO=path,
                   QUERY_STRING=query, REQUEST_METHOD=method, CONTENT_TYPE=self.headers.get("Content-Type", ""),
                   CONTENT_LENGTH=str(len(data)), REMOTE_ADDR="127.0.0.1", SERVER_PROTOCOL="HTTP/1.0")
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        if self.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        p = subprocess.Popen(["git", "http-backend"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        feeder = threading.Thread(target=lambda: (p.stdin.write(data), p.stdin.close()))
        feeder.start()
        status, headers = 200, []
        while True:
            line = p.stdout.readline().rstrip(b"\r\n")
            if not line:
                break
            k, _, v = line.decode().partition(":")
            if k.lower() == "status":
                status = int(v.split()[0])
            else:
                headers.append((k, v.strip()))
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        while chunk := p.stdout.read(1 << 16):
            self.wfile.write(chunk)
        feeder.join()
        p.wait()

    def do_GET(self):
        self.cgi("GET")

    def do_POST(self):
        self.cgi("POST")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


# ---------------------------------------------------------------------------------------------------------
# Timing

def run(cmd, cwd=None, env=None):
    """Runs cmd, returns (wall seconds, CPU seconds, stdout) ; fails loudly on a non-zero status."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env or ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate()
    wall = time.perf_counter() - t
    # communicate() reaped it: the children's rusage of this process grew by the child's (and its children's).
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{err.decode(errors='replace')}")
    return wall, out


class Timer:
    def __init__(self):
        self.rows = {}

    def time(self, name, cmd, cwd=None, prepare=None):
        if prepare:
            prepare()
        before = os.times()
        wall, out = run(cmd, cwd)
        after = os.times()
        cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        self.rows.setdefault(name, []).append((wall, cpu))
        return out


def load():
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def report(title, timer, ours, theirs):
    print(f"\n{title} ({load()})")
    print(f"{'':34} {'wall ms':>9} {'CPU ms':>9} {'wall x':>7} {'CPU x':>7}")
    ref = timer.rows[theirs]
    rw, rc = statistics.median(w for w, _ in ref), statistics.median(c for _, c in ref)
    for name in [theirs] + ours:
        rows = timer.rows[name]
        w, c = statistics.median(x for x, _ in rows), statistics.median(y for _, y in rows)
        print(f"{name:34} {w * 1000:9.1f} {c * 1000:9.1f} {w / rw:7.2f} {c / rc:7.2f}  (n={len(rows)})")


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("bashkit", nargs="?", default=os.path.join(here, "..", "build", "release", "cli", "bashkit"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", choices=["clone", "status"])
    ap.add_argument("--keep")
    a = ap.parse_args()
    bashkit = os.path.abspath(a.bashkit)
    if not os.access(bashkit, os.X_OK):
        sys.exit(f"git_compare: {bashkit} not built")
    scratch = tempfile.mkdtemp(prefix="bashkit-git-bench-")
    fixtures = a.keep or os.path.join(scratch, "fixtures")
    os.makedirs(fixtures, exist_ok=True)
    try:
        if a.only in (None, "clone"):
            bench_clone(a, bashkit, fixtures, scratch)
        if a.only in (None, "status"):
            bench_status(a, bashkit, fixtures, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def bench_clone(a, bashkit, fixtures, scratch):
    repo = os.path.join(fixtures, "repo.git")
    if not os.path.isdir(repo):
        t = time.time()
        make_big_repo(repo)
        print(f"made {repo} in {time.time() - t:.0f} s", file=sys.stderr)
    packs = os.path.join(repo, "objects", "pack")
    size = sum(os.path.getsize(os.path.join(packs, f)) for f in os.listdir(packs))
    count = git("rev-list", "--count", "--all", cwd=repo).stdout.decode().strip()
    Handler.root = fixtures
    srv = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_address[1]}/repo.git"
    print(f"clone: {size / 1e6:.1f} MB packed, {count} commits, {url}")
    dest = os.path.join(scratch, "dest")
    net = [bashkit, "--network", "all", "--allow-private-ips", "--timeout", "0", "--max-memory", "4G"]

    def fresh():
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)

    timer = Timer()
    for i in range(a.runs):
        timer.time("git clone (real git)", ["git", "clone", "-q", url, "r"], cwd=dest, prepare=fresh)
        if i == 0:
            head = git("rev-parse", "HEAD", cwd=os.path.join(dest, "r")).stdout
        timer.time("bashkit, host folder (--mount)", net + ["--mount", dest + ":/w", "--cwd", "/w", "-c",
                                                            EXPORTS + f"git clone -q {url} r && git -C r rev-parse HEAD"],
                   prepare=fresh)
        if i == 0:
            if git("rev-parse", "HEAD", cwd=os.path.join(dest, "r")).stdout != head:
                sys.exit("bashkit's clone differs")
            git("fsck", "--no-progress", cwd=os.path.join(dest, "r"))
        out = timer.time("bashkit, in-memory tree", net + ["-c", EXPORTS + f"git clone -q {url} r && git -C r rev-parse HEAD"])
        if out != head:
            sys.exit("bashkit's in-memory clone differs")
    srv.shutdown()
    report("git clone", timer, ["bashkit, host folder (--mount)", "bashkit, in-memory tree"], "git clone (real git)")


def bench_status(a, bashkit, fixtures, scratch):
    tree = os.path.join(fixtures, "tree")
    script_path = os.path.join(fixtures, "tree-changes.sh")
    if not os.path.isdir(tree):
        with open(script_path, "w") as fh:
            fh.write(make_status_tree(tree))
    n = git("ls-files", cwd=tree).stdout.count(b"\n")
    print(f"\nstatus: {n} files in the index, " + git("status", "--porcelain", cwd=tree).stdout.count(b"\n").__str__()
          + " lines of `git status --porcelain`")
    timer = Timer()
    mount = [bashkit, "--timeout", "0", "--mount", tree + ":/w", "--cwd", "/w", "-c"]
    for i in range(a.runs):
        for args, label in ((["status"], "git status"), (["status", "--porcelain"], "git status --porcelain")):
            theirs = timer.time(f"{label} (real git)", ["git", *args], cwd=tree)
            ours = timer.time(f"{label} (bashkit --mount)", mount + [EXPORTS + "git " + " ".join(args)])
            if i == 0 and ours != theirs:
                sys.exit(f"`{label}` differs:\n--- git\n{theirs.decode()}\n--- bashkit\n{ours.decode()}")
    report("git status", timer, ["git status (bashkit --mount)"], "git status (real git)")
    report("git status --porcelain", timer, ["git status --porcelain (bashkit --mount)"],
           "git status --porcelain (real git)")
    # bashkit's in-memory tree: a copy of the committed tree, committed by bashkit, the same changes made,
    # then `git status` timed inside the process by the shell's `time` (wall, user, system).
    inner = (EXPORTS + f"cp -r /h/. /t && cd /t && rm -rf .git && git init -q -b main && git add -A && git commit -qm tree "
             f"&& . /h-changes.sh && git status --porcelain >/dev/null; "
             f"for ((i=0;i<{a.runs};i++)); do for o in '' --porcelain; do "
             f"s=$EPOCHREALTIME; git status $o >/dev/null; e=$EPOCHREALTIME; echo $s $e; done; done")
    clean = os.path.join(scratch, "clean")
    git("clone", "-q", "--no-hardlinks", tree, clean)
    out = subprocess.run([bashkit, "--timeout", "0", "--max-memory", "4G", "--mount", clean + ":/h:ro",
                          "--mount", os.path.dirname(script_path) + ":/hs:ro", "-c",
                          inner.replace("/h-changes.sh", "/hs/" + os.path.basename(script_path))],
                         env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = [l.split() for l in out.stdout.decode().splitlines() if l.strip()]
    if out.returncode != 0 or len(lines) != 2 * a.runs:
        sys.exit(f"in-memory status run failed ({out.returncode}):\n{out.stdout.decode()}\n{out.stderr.decode()}")
    for k, label in ((0, "git status"), (1, "git status --porcelain")):
        w = statistics.median(float(l[1]) - float(l[0]) for l in lines[k::2])
        print(f"{label + ' (bashkit in-memory, inside)':34} {w * 1000:9.1f} {'-':>9}  (n={len(lines[k::2])})")


if __name__ == "__main__":
    main()
