"""Sandboxes and sessions: defaults, attributes, execute, files, tools (dicts), the other sandbox types."""
import os

import pytest

import bashkit
from bashkit import BashkitSandbox, Network, NoSandbox, SandboxAccess


def test_bashkit_defaults_and_attributes(tmp_path):
    sb = BashkitSandbox(base_dir=str(tmp_path))
    assert sb.type_name == "BashkitSandbox"
    assert sb.instance_id is None  # as passed
    assert sb.network == Network.none()
    assert sb.block_private_ips is True
    assert sb.header_bindings == ()
    assert sb.hooks == ()
    assert sb.access == SandboxAccess.full and sb.access == "full"
    assert sb.default_exec_timeout_seconds == 300
    assert sb.ephemeral is False
    assert sb.supported_network == ("none", "all", "allow")
    assert sb.supported_header_bindings == (bashkit.HeaderBinding, bashkit.GitHubBinding, bashkit.MistralApiBinding)
    assert sb.supported_access == "full"
    assert sb.delete_on_cleanup is False
    assert sb.supports_background_processes is True
    assert sb.attributes.type == "BashkitSandbox"
    assert BashkitSandbox.static_attributes().supported_network == ["none", "all", "allow"]
    assert BashkitSandbox(ephemeral=True).delete_on_cleanup is True
    assert BashkitSandbox(access="files").access == SandboxAccess.files
    assert [t.name for t in BashkitSandbox(access="files").tools()][0] == "read_file"
    sb = BashkitSandbox(network=Network.allow(hosts=["api.github.com"]),
                        header_bindings=[bashkit.GitHubBinding(repos=["o/r"], token="t")],
                        limits=bashkit.ExecutionLimits(max_call_depth=7), fs_limits=bashkit.FsLimits(max_nodes=9))
    assert sb.network.hosts == ("api.github.com",)
    assert sb.limits.max_call_depth == 7 and sb.fs_limits.max_nodes == 9
    assert [bashkit.binding_kind(b) for b in sb.header_bindings] == ["github"]


def test_the_issue_example(tmp_path):
    sb = bashkit.BashkitSandbox(instance_id="demo", base_dir=str(tmp_path),
                                network=bashkit.Network.allow(hosts=["api.github.com"]))
    with sb.session("s1") as s:
        r = s.execute("ls | wc -l")
        assert (r.exit_code, r.stdout, r.stderr) == (0, "0\n", "")


def test_execute_keeps_state_and_files(sandbox, tmp_path):
    s = sandbox.session("s1")
    assert not s.is_open
    with s:
        assert s.is_open and s.id == "s1" and s.sandbox_type == "BashkitSandbox" and s.access == SandboxAccess.full
        assert s.location == sandbox.session_dir("s1")
        r = s.execute("pwd; echo $HOME; x=41; echo hi > f.txt; echo err >&2; exit 3")
        assert (r.exit_code, r.stdout, r.stderr, r.timed_out) == (3, "/workspace\n/home/user\n", "err\n", False)
        assert s.execute("echo $((x+1)); cat f.txt").stdout == "42\nhi\n"
        assert s.read_file("f.txt") == "hi\n"
        s.write_file("/tmp/a/b.txt", "B")
        s.write_file("bin.dat", b"\xff\x00x")
        assert s.read_file_bytes("bin.dat") == b"\xff\x00x"
        assert s.read_file("bin.dat") == "\ufffd\x00x"
        r = s.execute("cat /tmp/a/b.txt; printf '\\xff'")
        assert r.stdout == "B\ufffd" and r.stdout_bytes == b"B\xff"
        with pytest.raises(bashkit.SandboxError, match="No such file or directory"):
            s.read_file("missing.txt")
    assert not s.is_open
    with open(os.path.join(sandbox.session_dir("s1"), "workspace", "f.txt")) as f:
        assert f.read() == "hi\n"
    # The files stay; a new session with the same ids finds them (not the variables).
    again = sandbox.open("s1")
    assert again.is_open
    assert again.execute("cat f.txt; echo ${x:-unset}").stdout == "hi\nunset\n"
    again.close()
    sandbox.delete_session("s1")
    assert not os.path.exists(sandbox.session_dir("s1"))


def test_timeout(session):
    r = session.execute("while true; do :; done", timeout_seconds=0.3)
    assert (r.exit_code, r.timed_out, r.cancelled, r.truncated) == (124, True, False, False)
    assert r.stderr == "bashkit: execution timed out after 0.3 s\n"
    assert session.execute("echo ok").stdout == "ok\n"


def test_flags_are_not_read_from_stderr(tmp_path):
    sb = bashkit.BashkitSandbox(base_dir=str(tmp_path), limits=bashkit.ExecutionLimits(max_output_bytes=8))
    with sb.session("f") as s:
        r = s.execute("echo 'bashkit: execution timed out after 1 s' >&2; exit 124")
        assert (r.exit_code, r.timed_out, r.truncated, r.stderr) == (124, False, True, "bashkit:")


def test_max_memory_bytes(tmp_path):
    # The session's one memory budget (every variable, buffer and utility of the session).
    assert bashkit.ExecutionLimits().max_memory_bytes == 1 << 30
    sb = bashkit.BashkitSandbox(base_dir=str(tmp_path), limits=bashkit.ExecutionLimits(max_memory_bytes=64 << 20))
    with sb.session("m") as s:
        r = s.execute("head -c 100000000 /dev/zero | sort > /dev/null; echo status $?")
        assert "memory limit exceeded (64 MiB)" in r.stderr
        assert r.stdout == "status 1\n" or r.stdout.startswith("status ") and r.stdout != "status 0\n"
        assert s.execute("echo ok").stdout == "ok\n"


def test_max_open_files(tmp_path):
    sb = bashkit.BashkitSandbox(base_dir=str(tmp_path), fs_limits=bashkit.FsLimits(max_open_files=4))
    with sb.session("f") as s:
        r = s.execute("touch f; exec 3<f 4<f 5<f 6<f; echo four; exec 7<f")
        assert (r.exit_code, r.stdout, r.stderr) == (1, "four\n", "bashkit: line 1: f: Too many open files\n")


def test_random_session_id_and_repr(sandbox):
    s = sandbox.session()
    assert len(s.id) == 16
    assert repr(s) == "<SandboxSession BashkitSandbox '%s' closed>" % s.id
    assert repr(sandbox) == "<BashkitSandbox network=Network.none() access='full'>"


def test_session_outlives_its_sandbox_object(tmp_path):
    s = BashkitSandbox(base_dir=str(tmp_path)).open("s")
    assert s.execute("echo alive").stdout == "alive\n"
    s.close()


def test_network_none_refuses(session):
    r = session.execute("curl -sS https://example.com/; echo $?")
    assert r.stdout == "7\n"
    assert r.stderr == "curl: (7) blocked by the sandbox: network access is disabled in this sandbox\n"


def test_tools_return_dicts(session):
    assert [t.name for t in session.tools()] == [t.name for t in bashkit.tools_for("full", True)]
    r = session.call_tool("write_file", {"path": "app/greet.sh", "content": "echo hello\n"})
    assert r == {"ok": True, "path": "app/greet.sh", "bytes_written": 11}
    r = session.call_tool("bash", {"command": "bash app/greet.sh"})
    assert r == {"ok": True, "exit_code": 0, "stdout": "hello\n", "stderr": "", "timed_out": False}
    r = session.call_tool("edit_file", {"path": "app/greet.sh", "old_string": "hello", "new_string": "bye"})
    assert r["ok"] is True and r["replacements"] == 1
    r = session.call_tool("read_file", {"path": "app/greet.sh"})
    assert r["ok"] is True and r["content"] == "echo bye\n" and r["truncated"] is False
    r = session.call_tool("list_files", {"recursive": True})
    assert r["ok"] is True
    assert {"path": "app/greet.sh", "type": "file", "size": 9} in r["entries"]
    r = session.call_tool("search_files", {"pattern": "bye", "glob": "*.sh"})
    assert r["matches"] == [{"path": "app/greet.sh", "line": 1, "text": "echo bye"}]
    r = session.call_tool("bash", {"command": "while :; do :; done", "timeout_seconds": 0.3})
    assert r["exit_code"] == 124 and r["timed_out"] is True
    # Errors are results, not exceptions.
    assert session.call_tool("read_file", {"path": "missing.txt"}) == \
        {"ok": False, "error": "read_file: missing.txt: No such file or directory"}
    r = session.call_tool("bash", {"cmd": "ls"})
    assert r["ok"] is False and "cmd" in r["error"]
    assert session.call_tool("nope")["ok"] is False
    with pytest.raises(TypeError, match="cannot convert to JSON: unsupported type object"):
        session.call_tool("bash", {"command": object()})
    with pytest.raises(TypeError, match="dict keys must be str"):
        session.call_tool("bash", {1: "x"})


def test_closed_session_tool_result(sandbox):
    s = sandbox.session("c")
    assert s.call_tool("bash", {"command": "ls"}) == {"ok": False, "error": "bash: the session is not open"}


def test_no_sandbox():
    sb = NoSandbox()
    assert sb.type_name == "NoSandbox"
    assert sb.supported_network == ("none",) and sb.supported_header_bindings == ()
    assert sb.supported_access == "none" and sb.access == SandboxAccess.none
    assert sb.delete_on_cleanup is True and sb.tools() == []
    with sb.open() as s:
        r = s.execute("echo hi")
        assert (r.exit_code, r.stderr) == (127, "NoSandbox: no commands can run in this sandbox\n")
        assert s.call_tool("bash", {"command": "ls"}) == {"ok": False, "error": "bash: not available with access=none"}
        assert s.cancel() is False


def test_dangerous_local_sandbox(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    sb = bashkit.DangerousLocalSandbox(workspace=str(ws))
    assert sb.shell == "bash" and sb.default_exec_timeout_seconds == 600 and sb.workspace == str(ws)
    assert sb.network == Network.all() and sb.supported_network == ("all",)
    assert sb.delete_on_cleanup is False and sb.supports_background_processes is True
    assert bashkit.DangerousLocalSandbox(workspace=str(ws), delete_on_cleanup=True).delete_on_cleanup is True
    assert "start_process" in [t.name for t in sb.tools()]
    with sb.session("local") as s:
        r = s.execute("echo hi > where; pwd")
        assert r.stdout == str(ws) + "\n"
        assert (ws / "where").read_text() == "hi\n"
        r = s.call_tool("start_process", {"command": "echo bg"})
        assert r["ok"] is True and r["process_id"] == 1
    assert bashkit.DangerousLocalSandbox.check_deletable_workspace("relative") is not None
    assert bashkit.DangerousLocalSandbox.default_workspace_base().endswith("/.cache/mistral-vibe-harness-local-host")


def test_local_docker_with_a_recording_runner():
    calls = []

    def runner(opts):
        calls.append(opts)
        r = bashkit.ProcessResult()
        if opts.argv[1] == "run":
            r.out = "abc123\n"
        if opts.argv[1] == "exec" and opts.argv[-1] == "echo hi":
            r.out = "hi\n"
        return r

    sb = bashkit.LocalDockerSandbox(setup_script="pip install x", runner=runner)
    assert sb.image == "python:3.12-bookworm" and sb.shell == "bash" and sb.docker == "docker"
    assert sb.default_exec_timeout_seconds == 600 and sb.setup_script_timeout_seconds == 300
    assert sb.supported_network == ("none", "all")
    with sb.open("s1") as s:
        assert s.location == "abc123"
        r = s.execute("echo hi", timeout_seconds=5)
        assert (r.exit_code, r.stdout) == (0, "hi\n")
    argvs = [c.argv for c in calls]
    assert argvs[0] == sb.info_argv() == ["docker", "info", "--format", "{{.ServerVersion}}"]
    assert argvs[1] == sb.run_argv("bashkit-s1")
    assert argvs[2] == sb.exec_argv("abc123", "pip install x", 300)
    assert argvs[3] == sb.exec_argv("abc123", "echo hi", 5)
    assert argvs[4] == sb.rm_argv("abc123") == ["docker", "rm", "-f", "abc123"]
    assert bashkit.LocalDockerSandbox.container_name("a/b c") == "bashkit-a_b_c"
    assert bashkit.LocalDockerSandbox.format_seconds(0.25) == "0.25"
    assert sb.read_argv("c1", "a b.txt") == ["docker", "exec", "-w", "/workspace", "c1", "cat", "--", "a b.txt"]


def test_docker_background_processes_follow_the_image():
    # The reference: True when the image is omitted, False when it is given (unless asked for).
    assert bashkit.LocalDockerSandbox().supports_background_processes is True
    assert bashkit.LocalDockerSandbox(image="alpine:3").supports_background_processes is False
    assert bashkit.LocalDockerSandbox(image="python:3.12-bookworm").supports_background_processes is False
    assert bashkit.LocalDockerSandbox(image="alpine:3", supports_background_processes=True).supports_background_processes
    assert bashkit.LocalDockerSandbox(supports_background_processes=False).supports_background_processes is False

    def runner(opts):
        r = bashkit.ProcessResult()
        if opts.argv[1] == "run":
            r.out = "abc123\n"
        return r

    def tool_names(sb):
        with sb.open("s1") as s:
            return [t.name for t in s.tools()]

    assert "start_process" in tool_names(bashkit.LocalDockerSandbox(runner=runner))
    assert "start_process" not in tool_names(bashkit.LocalDockerSandbox(image="alpine:3", runner=runner))


def test_run_process():
    r = bashkit.run_process(bashkit.ProcessOptions(argv=["/bin/sh", "-c", "echo out; echo err >&2; exit 4"]))
    assert (r.exit_code, r.out, r.err, r.timed_out, r.started) == (4, "out\n", "err\n", False, True)
