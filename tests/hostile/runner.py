"""hostile runner, Python edition: the same contract as runner.cpp, through the Python module.

    python3 runner.py [--timeout SECONDS] [--max-memory BYTES] < script

Plays an agent written in Python that embeds bashkit: one in-memory BashkitSandbox session executes the script
read from stdin with the given timeout and memory budget, then `echo ok` in the SAME session; prints that second
command's stdout. Exit status: 0 when it printed "ok", 1 when not, 2 on a usage error, 3 when an exception
escaped the API (the API promises that nothing does).
"""
import sys


def main(argv):
    timeout, max_memory = 1.0, 0
    args = list(argv)
    while args:
        if len(args) < 2 or args[0] not in ("--timeout", "--max-memory"):
            print("usage: runner.py [--timeout SECONDS] [--max-memory BYTES] < script", file=sys.stderr)
            return 2
        if args[0] == "--timeout":
            timeout = float(args[1])
        else:
            max_memory = int(args[1])
        args = args[2:]
    script = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    try:
        import bashkit

        kw = {}
        if max_memory:
            kw["limits"] = bashkit.ExecutionLimits(max_memory_bytes=max_memory)
            kw["fs_limits"] = bashkit.FsLimits(max_total_bytes=max_memory)
        sandbox = bashkit.BashkitSandbox(ephemeral=True, default_exec_timeout_seconds=timeout, **kw)
        with sandbox.session() as s:
            first = s.execute(script)
            print(f"script: exit {first.exit_code}, {len(first.stdout)} chars out, {len(first.stderr)} chars err",
                  file=sys.stderr)
            if first.stderr:
                print("script stderr ends: " + first.stderr[-300:], file=sys.stderr)
            second = s.execute("echo ok", timeout_seconds=5.0)
    except BaseException as e:  # noqa: BLE001 - anything out of the API is the failure this runner reports
        print(f"runner.py: exception crossed the API: {type(e).__name__}: {e}", file=sys.stderr)
        return 3
    sys.stdout.write(second.stdout)
    sys.stdout.flush()
    if second.stdout == "ok\n":
        return 0
    print(f"echo ok: exit {second.exit_code}, stderr: {second.stderr[:300]}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
