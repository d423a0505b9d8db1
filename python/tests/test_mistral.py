"""MistralSandbox: options from keywords, the environment (a mapping, a callable) and defaults; refusals."""
import time

import pytest

import bashkit
from bashkit import EgressPolicy, MistralSandbox, Network, SandboxAccess

NO_ENV = {}
FRA = ("This network policy is not supported in region 'fra'; it is supported only in nl-north-1. Pass "
       "network=Network.all() or a supported region.")


def test_defaults_and_attributes():
    sb = MistralSandbox(env=NO_ENV)
    st = sb.settings
    assert (st.endpoint, st.api_token, st.instance_type, st.region) == ("", "", "medium", "nl-north-1")
    assert (st.ttl_seconds, st.default_exec_timeout_seconds, st.readiness_max_retries) == (86400, 30, 10)
    assert sb.type_name == "MistralSandbox"
    assert sb.network == Network.none() and sb.egress_policy == EgressPolicy.block_all()
    assert sb.supported_network == ("none", "all")
    assert sb.supported_header_bindings == (bashkit.GitHubBinding, bashkit.MistralApiBinding,
                                            bashkit.WorkspaceHeaderBindings)
    assert sb.access == SandboxAccess.full and sb.access == "full" and sb.delete_on_cleanup is True
    assert sb.authored_settings == {}
    assert MistralSandbox(env=NO_ENV, pre_provisioned_sandbox_id="sbx-1").delete_on_cleanup is False
    assert MistralSandbox.env_var("ttl_seconds") == "AGENTS_SDK_KOYEB_SANDBOX_TTL_SECONDS"
    assert MistralSandbox.env_options()[:3] == ["image", "endpoint", "api_token"]
    # The process tools: with the service's image unless told otherwise; not with another image.
    assert sb.supports_background_processes is True and len(sb.tools()) == 10
    assert MistralSandbox(env=NO_ENV, image="python:3.12").supports_background_processes is False
    assert MistralSandbox(env=NO_ENV, image="python:3.12", supports_background_processes=True).supports_background_processes
    assert MistralSandbox(env=NO_ENV, supports_background_processes=False).supports_background_processes is False


def test_environment_fills_what_is_omitted():
    env = {"AGENTS_SDK_KOYEB_SANDBOX_ENDPOINT": "http://sandboxes.internal:8080",
           "AGENTS_SDK_KOYEB_SANDBOX_API_TOKEN": "tok-env",
           "AGENTS_SDK_KOYEB_SANDBOX_TTL_SECONDS": "60"}
    sb = MistralSandbox(env=env, ttl_seconds=120, region=None)
    assert sb.settings.endpoint == "http://sandboxes.internal:8080"
    assert sb.settings.ttl_seconds == 120  # passed wins
    assert "tok-env" not in repr(sb.settings)
    assert sb.authored_settings == {"ttl_seconds": 120}
    looked_up = []

    def lookup(name):
        looked_up.append(name)
        return "large" if name == "AGENTS_SDK_KOYEB_SANDBOX_INSTANCE_TYPE" else None

    assert MistralSandbox(env=lookup).settings.instance_type == "large"
    assert "AGENTS_SDK_KOYEB_SANDBOX_REGION" in looked_up
    sb = MistralSandbox(env=NO_ENV, api_token="secret", network=Network.all())
    assert sb.authored_settings["api_token"] == "[redacted]"
    assert sb.create_request("s1")["network"] == bashkit.network_to_json(Network.all())


@pytest.mark.parametrize("make,message", [
    (lambda: MistralSandbox(env=NO_ENV, region="fra"), FRA),
    (lambda: MistralSandbox(env={"AGENTS_SDK_KOYEB_SANDBOX_REGION": "fra"}), FRA),
    (lambda: MistralSandbox(env=NO_ENV, region="fra", egress=EgressPolicy.custom(allow_cidrs=["10.0.0.0/8"])), FRA),
    (lambda: MistralSandbox(env=NO_ENV, ttl_seconds=0), "MistralSandbox: ttl_seconds must be positive"),
    (lambda: MistralSandbox(env={"AGENTS_SDK_KOYEB_SANDBOX_TTL_SECONDS": "soon"}),
     "MistralSandbox: AGENTS_SDK_KOYEB_SANDBOX_TTL_SECONDS: expected an integer, got 'soon'"),
    (lambda: MistralSandbox(env=NO_ENV, header_bindings=[bashkit.HeaderBinding(host="a.com", header="X",
                                                                               secret_name="S")]),
     "MistralSandbox does not support header binding HeaderBinding; supported: GitHubBinding, MistralApiBinding, "
     "WorkspaceHeaderBindings"),
])
def test_refusals(make, message):
    with pytest.raises(ValueError) as e:
        make()
    assert str(e.value) == message


def test_unknown_keyword():
    with pytest.raises(TypeError, match="unexpected keyword argument 'regoin'"):
        MistralSandbox(env=NO_ENV, regoin="fra")


def test_open_without_endpoint_is_sandbox_error():
    with pytest.raises(bashkit.SandboxError) as e:
        MistralSandbox(env=NO_ENV).open("s")
    assert str(e.value) == "MistralSandbox: no endpoint: pass endpoint or set AGENTS_SDK_KOYEB_SANDBOX_ENDPOINT"


def test_json_forms():
    n = Network.allow(hosts=["pypi.org"])
    assert bashkit.network_from_json(bashkit.network_to_json(n)) == n
    e = EgressPolicy.custom(allow_cidrs=["10.0.0.0/8"])
    assert bashkit.egress_from_json(bashkit.egress_to_json(e)) == e
    with pytest.raises(ValueError, match="network: unknown kind 'some'"):
        bashkit.network_from_json({"kind": "some"})
    j = bashkit.binding_to_json(bashkit.GitHubBinding(repos=["o/r"], token="tok"))
    assert "tok" not in str(j)


@pytest.fixture
def serve():
    """A `bashkit serve` on a free local port (BASHKIT_SERVE names the program; ctest sets it)."""
    import os
    import subprocess

    program = os.environ.get("BASHKIT_SERVE")
    if not program or not os.path.exists(program):
        pytest.skip("BASHKIT_SERVE is not set to the bashkit-serve program")
    env = dict(os.environ, BASHKIT_SERVE_TOKENS="tok-py")
    p = subprocess.Popen([program, "--port", "0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    try:
        line = p.stdout.readline()
        assert line.startswith("bashkit serve: listening on "), line
        yield line.split()[-1]
    finally:
        p.terminate()
        p.wait(timeout=20)


def test_end_to_end_against_bashkit_serve(serve):
    log = []

    class Hook(bashkit.SandboxHook):
        def on_create(self, ctx):
            log.append(ctx.execute("echo created").stdout)

    sb = MistralSandbox(env=NO_ENV, endpoint=serve, api_token="tok-py", hooks=[Hook()],
                        readiness_interval_seconds=0.1)
    with sb.session("remote") as s:
        assert log == ["created\n"]
        r = s.execute("x=41; echo $((x+1)); echo err >&2; exit 3")
        assert (r.exit_code, r.stdout, r.stderr) == (3, "42\n", "err\n")
        s.write_file("/workspace/a.txt", "A")
        assert s.read_file("/workspace/a.txt") == "A"
        assert s.call_tool("bash", {"command": "cat a.txt"})["stdout"] == "A"
        assert s.call_tool("read_file", {"path": "missing"})["ok"] is False
        # A background process on the service, fed and read through the process tools.
        pid = s.call_tool("start_process", '{"command": "read l; echo got $l; exit 4"}')["process_id"]
        assert s.call_tool("write_process_input", {"process_id": pid, "input": "x\n"})["bytes_written"] == 2
        out = ""
        for _ in range(200):
            o = s.call_tool("read_process_output", {"process_id": pid})
            out += o["stdout"]
            if not o["running"]:
                break
            time.sleep(0.02)
        assert (out, o["exit_code"]) == ("got x\n", 4)
    wrong = MistralSandbox(env=NO_ENV, endpoint=serve, api_token="wrong")
    with pytest.raises(bashkit.SandboxError, match="401"):
        wrong.open("x")
