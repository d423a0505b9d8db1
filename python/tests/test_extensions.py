"""The embedder extensions from Python: custom commands, streaming output callbacks, snapshot and resume."""
import json
import time

import pytest

import bashkit


def test_custom_command_in_a_pipeline_and_under_xargs(session):
    def shout(ctx):
        ctx.write(ctx.read_text().upper())
        return 0

    def greet(ctx):
        ctx.write("hello %s\n" % " ".join(ctx.argv[1:]))

    session.add_command("shout", shout, help="shout: upper-case stdin")
    session.add_command("greet", greet)
    r = session.execute("printf 'a\\nb\\n' | shout | sort -r")
    assert (r.exit_code, r.stdout) == (0, "B\nA\n")
    r = session.execute("printf 'x\\ny\\n' | xargs -n1 greet")
    assert r.stdout == "hello x\nhello y\n"
    r = session.execute("echo hi | shout > out.txt; cat out.txt; find . -name out.txt -exec greet {} \\;")
    assert r.stdout == "HI\nhello ./out.txt\n"
    r = session.execute("timeout 5 greet t; type greet")
    assert r.stdout.startswith("hello t\n")


def test_custom_command_status_errors_files_and_env(session):
    def tool(ctx):
        if len(ctx.argv) < 2:
            ctx.write_err("tool: missing operand\n")
            return 2
        if ctx.argv[1] == "boom":
            raise RuntimeError("it broke")
        ctx.write_file("made.txt", ctx.env.get("WHO", "?") + "@" + ctx.cwd)
        return 0

    session.add_command("tool", tool)
    r = session.execute("tool; echo status=$?")
    assert r.stdout == "status=2\n" and r.stderr == "tool: missing operand\n"
    r = session.execute("tool boom; echo status=$?")
    assert r.stdout == "status=1\n" and r.stderr == "tool: RuntimeError: it broke\n"
    r = session.execute("WHO=ada tool go && cat made.txt")
    assert r.stdout == "ada@/workspace"


def test_custom_command_refusals(session):
    with pytest.raises(ValueError, match="replace"):
        session.add_command("grep", lambda ctx: 0)
    session.add_command("grep", lambda ctx: ctx.write("mine\n"), replace=True)
    assert session.execute("grep x").stdout == "mine\n"
    with pytest.raises(ValueError):
        session.add_command("export", lambda ctx: 0, replace=True)


def test_context_is_invalid_after_the_call(session):
    kept = []
    session.add_command("keep", lambda ctx: kept.append(ctx))
    session.execute("keep")
    with pytest.raises(bashkit.SandboxError, match="no longer valid"):
        kept[0].write("late")


def test_streaming_callbacks_see_output_before_the_end(session):
    chunks = []
    start = time.monotonic()
    r = session.execute("for i in 1 2 3; do echo $i; sleep 0.1; done; echo err >&2",
                        on_stdout=lambda c: chunks.append((time.monotonic(), c)),
                        on_stderr=lambda c: chunks.append((time.monotonic(), "E:" + c)))
    end = time.monotonic()
    assert r.stdout == "1\n2\n3\n"
    assert "".join(c for _, c in chunks) == "1\n2\n3\nE:err\n"
    assert chunks[0][1] == "1\n"
    assert end - chunks[0][0] >= 0.15, (start, chunks, end)


def test_snapshot_and_resume_in_another_session(sandbox):
    with sandbox.session("a") as a:
        a.execute("declare -A m=([k]=v); x=1; f() { echo f$1; }; alias ll='ls -l'; set -o pipefail; cd /tmp")
        snap = a.save_state()
        before = a.execute("declare -p m x; declare -f f; alias; set -o | grep pipefail; pwd").stdout
    assert json.loads(snap)["version"] == 1
    with sandbox.session("b") as b:
        b.restore_state(snap)
        after = b.execute("declare -p m x; declare -f f; alias; set -o | grep pipefail; pwd").stdout
    assert after == before
    with sandbox.session("c") as c:
        with pytest.raises(bashkit.SandboxError, match="version"):
            state = json.loads(snap)
            state["version"] = 99
            c.restore_state(json.dumps(state))


def test_analyze_without_running():
    a = bashkit.analyze("curl -s https://example.com | tee out.txt; eval \"$cmd\"")
    assert a["uses_network"] is True
    assert a["uses_eval"] is True
    assert "curl" in a["command_names"] and "tee" in a["command_names"]
    assert [w["path"] for w in a["writes"]] == ["out.txt"]
    bad = bashkit.analyze("if true; then fi")
    assert "syntax error" in json.dumps(bad)


def test_throwing_custom_command_in_pipeline_function_and_subshell(session):
    # A command that raises fails alone (status 1, its message), wherever it runs; the session goes on.
    def boom(ctx):
        raise MemoryError("no room")

    session.add_command("boom", boom)
    r = session.execute('echo x | boom | cat; echo "${PIPESTATUS[@]}"')
    assert r.stdout == "0 1 0\n" and r.stderr == "boom: MemoryError: no room\n"
    r = session.execute('f() { boom; echo "in f $? ${FUNCNAME[*]}"; }; f; echo "${#FUNCNAME[@]}"')
    assert r.stdout == "in f 1 f\n0\n"
    r = session.execute("(boom; echo sub $?); echo $?")
    assert r.stdout == "sub 1\n0\n"
    r = session.execute("echo ok")
    assert r.stdout == "ok\n" and r.exit_code == 0
