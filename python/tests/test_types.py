"""The value types: Network, EgressPolicy, bindings, results, access, limits, tool specs."""
import datetime

import pytest

import bashkit
from bashkit import (BashkitSandbox, EgressPolicy, ExecutionLimits, FsLimits, GitHubBinding, HeaderBinding, MistralApiBinding,
                     Network, SandboxAccess, SandboxExecutionResult, WorkspaceHeaderBindings)


def test_version():
    assert bashkit.__version__.count(".") == 2


def test_network():
    assert Network.none().kind == "none"
    assert Network.all().kind == "all"
    n = Network.allow(hosts=["api.github.com", "Example.com:8443"])
    assert n.kind == "allow" and n.mode == "allow"
    assert n.hosts == ("api.github.com", "example.com:8443")
    assert n.reaches("api.github.com")
    assert n.reaches("example.com:8443")
    assert not n.reaches("example.com")
    assert not Network.none().reaches("api.github.com")
    assert Network.all().reaches("anything.org")
    assert n.describe() == "allow(api.github.com, example.com:8443)"
    assert repr(n) == "Network.allow(hosts=['api.github.com', 'example.com:8443'])"
    assert repr(Network.none()) == "Network.none()"
    assert Network.none() == Network.none()
    assert Network.none() != Network.all()
    assert Network.allow(hosts=("a.com",)) == Network.allow(hosts=["a.com"])


def test_network_refusals():
    with pytest.raises(ValueError, match=r"\*"):
        Network.allow(hosts=["*.github.com"])
    with pytest.raises(TypeError):
        Network.allow(hosts="api.github.com:x:y", extra=1)


def test_egress_policy():
    assert EgressPolicy.block_all().kind == "block_all"
    assert EgressPolicy.allow_all().describe() == "allow_all"
    c = EgressPolicy.custom(allow_cidrs=["10.0.0.0/8", "2001:db8::/32", "1.2.3.4"])
    assert c.kind == "custom" and c.mode == "custom"
    assert c.allow_cidrs == ("10.0.0.0/8", "2001:db8::/32", "1.2.3.4")
    assert c.describe() == "custom(10.0.0.0/8, 2001:db8::/32, 1.2.3.4)"
    assert repr(c) == "EgressPolicy.custom(allow_cidrs=['10.0.0.0/8', '2001:db8::/32', '1.2.3.4'])"
    assert EgressPolicy.from_network(Network.none()) == EgressPolicy.block_all()
    assert EgressPolicy.from_network(network=Network.all()) == EgressPolicy.allow_all()
    with pytest.raises(ValueError) as e:
        EgressPolicy.custom(allow_cidrs=["10.0.0.1/8"])
    assert str(e.value) == "EgressPolicy.custom: invalid CIDR '10.0.0.1/8' (host bits set)"
    with pytest.raises(ValueError) as e:
        EgressPolicy.custom(allow_cidrs=["example.com"])
    assert str(e.value) == "EgressPolicy.custom: invalid CIDR 'example.com'"
    with pytest.raises(ValueError) as e:
        EgressPolicy.from_network(Network.allow(hosts=["api.github.com"]))
    assert str(e.value) == ("EgressPolicy: allow(api.github.com) names hosts, which an egress policy "
                            "(IP prefixes) cannot express")


def test_binding_defaults_and_kinds():
    h = HeaderBinding(host="api.x.com", header="Authorization", secret_name="X_TOKEN")
    assert (h.host, h.header, h.secret_name, h.path_prefix, h.prefix, h.suffix) == (
        "api.x.com", "Authorization", "X_TOKEN", "/", "", "")
    g = GitHubBinding(repos=["o/r"])
    assert (g.repos, g.ttl_seconds, g.host, g.token) == (("o/r",), 3600, "github.com", "")
    m = MistralApiBinding()
    assert (m.ttl_seconds, m.api_key) == (3600, "")
    assert bashkit.binding_kind(h) == "header_binding"
    assert bashkit.binding_kind(g) == "github"
    assert bashkit.binding_kind(m) == "mistral_api"
    h2 = HeaderBinding(host="api.x.com", header="Authorization", secret_name="X_TOKEN", prefix="Bearer ")
    assert h2.host == "api.x.com" and h2.prefix == "Bearer "
    assert repr(h2) == ("HeaderBinding(host='api.x.com', header='Authorization', secret_name='X_TOKEN', "
                        "path_prefix='/', prefix='Bearer ', suffix='')")
    assert h2 == HeaderBinding(host="api.x.com", header="Authorization", secret_name="X_TOKEN", prefix="Bearer ")
    assert h2 != h and hash(h2) == hash(HeaderBinding(host="api.x.com", header="Authorization",
                                                      secret_name="X_TOKEN", prefix="Bearer "))
    assert "s3cr" not in repr(GitHubBinding(repos="all", token="s3cr"))
    with pytest.raises(TypeError, match="unexpected keyword argument 'hots'"):
        HeaderBinding(hots="x", header="X", secret_name="S")
    with pytest.raises(AttributeError):
        h.host = "other"  # immutable
    with pytest.raises(TypeError):
        bashkit.binding_kind("HeaderBinding")


def validate_error(binding):
    with pytest.raises(ValueError) as e:
        BashkitSandbox(header_bindings=[binding], secrets={"S": "s", "EMPTY": ""}, ephemeral=True)
    return str(e.value)


def test_binding_validation():
    BashkitSandbox(header_bindings=[HeaderBinding(host="api.x.com", header="Authorization", secret_name="S")],
                   secrets={"S": "s"}, ephemeral=True)
    assert validate_error(HeaderBinding(host="api.x.com", header="Bad Header", secret_name="S")) == \
        "header_bindings: HeaderBinding #1: header: not a valid header name 'Bad Header'"
    assert validate_error(HeaderBinding(host="api.x.com", header="X", secret_name="EMPTY")) == \
        ("header_bindings: HeaderBinding #1: no secret named 'EMPTY' (pass secrets={'EMPTY': ...} to the sandbox, "
         "or set it in the environment)")
    assert validate_error(HeaderBinding(host="api.x.com", header="X", secret_name="S", path_prefix="v1")) == \
        "header_bindings: HeaderBinding #1: path_prefix: must start with '/'"
    assert validate_error(GitHubBinding(repos=[], token="t")) == \
        "header_bindings: GitHubBinding #1: repos: at least one 'owner/name' (or 'all') is required"
    assert validate_error(GitHubBinding(repos=["justone"], token="t")) == \
        "header_bindings: GitHubBinding #1: repos: expected 'owner/name', got 'justone'"
    with pytest.raises(ValueError, match="GitHubBinding: ttl_seconds must be positive"):
        GitHubBinding(repos=["a/b"], ttl_seconds=0)
    with pytest.raises(ValueError, match="MistralApiBinding: ttl_seconds must be positive"):
        MistralApiBinding(ttl_seconds=-1)
    with pytest.raises(ValueError, match="HeaderBinding: secret_name must not be empty"):
        HeaderBinding(host="a.com", header="X", secret_name="")


def test_workspace_header_bindings():
    w = WorkspaceHeaderBindings()
    assert w.kind == "workspace_header_bindings" and repr(w) == "WorkspaceHeaderBindings()"
    with pytest.raises(TypeError):
        WorkspaceHeaderBindings([HeaderBinding(host="a.com", header="X", secret_name="S")])  # a marker: no fields


def test_execution_result():
    r = SandboxExecutionResult(0, "", "")
    assert (r.exit_code, r.stdout, r.stderr, r.timed_out) == (0, "", "", False)
    r = SandboxExecutionResult(exit_code=3, stdout="out\n", stderr="err", timed_out=True)
    assert (r.exit_code, r.stdout, r.stderr, r.timed_out) == (3, "out\n", "err", True)
    assert r.stdout_bytes == b"out\n"
    assert repr(r) == "SandboxExecutionResult(exit_code=3, stdout='out\\n', stderr='err', timed_out=True)"
    assert r == SandboxExecutionResult(exit_code=3, stdout="out\n", stderr="err", timed_out=True)
    with pytest.raises(TypeError):
        SandboxExecutionResult(3)  # stdout and stderr are required
    with pytest.raises(TypeError):
        SandboxExecutionResult(3, "", "", True)  # timed_out (an addition) is keyword-only
    # cancelled and truncated: further additions, keyword-only, shown by repr only when set.
    r = SandboxExecutionResult(130, "", "", cancelled=True, truncated=True)
    assert (r.timed_out, r.cancelled, r.truncated) == (False, True, True)
    assert repr(r) == "SandboxExecutionResult(exit_code=130, stdout='', stderr='', timed_out=False, cancelled=True, truncated=True)"
    assert r != SandboxExecutionResult(130, "", "", cancelled=True)


def test_access():
    assert [a.name for a in (SandboxAccess.none, SandboxAccess.files, SandboxAccess.full)] == ["none", "files", "full"]
    assert str(SandboxAccess.files) == "files"
    assert SandboxAccess.none.value < SandboxAccess.files.value < SandboxAccess.full.value


def test_limits():
    lim = ExecutionLimits()
    assert lim.timeout == datetime.timedelta(seconds=300)
    assert lim.max_call_depth == 1000
    assert lim.max_loop_iterations == 0
    lim = ExecutionLimits(max_call_depth=10, timeout=datetime.timedelta(seconds=5))
    assert lim.max_call_depth == 10 and lim.timeout == datetime.timedelta(seconds=5)
    assert lim.max_output_bytes == 10 << 20
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_cal_depth'"):
        ExecutionLimits(max_cal_depth=1)
    fl = FsLimits(max_nodes=5)
    assert fl.max_nodes == 5 and fl.max_total_bytes == 1 << 30
    assert FsLimits.unlimited().max_total_bytes > 1 << 60
    assert FsLimits().max_open_files == 256 and FsLimits(max_open_files=8).max_open_files == 8


def test_tool_specs():
    assert bashkit.tools_for("none") == []
    names = [t.name for t in bashkit.tools_for(SandboxAccess.full)]
    assert names == ["bash", "read_file", "write_file", "edit_file", "list_files", "search_files"]
    assert [t.name for t in bashkit.tools_for("files")] == names[1:]
    procs = [t.name for t in bashkit.tools_for("full", background_processes=True)]
    assert procs[-4:] == ["start_process", "read_process_output", "write_process_input", "kill_process"]
    bash = bashkit.tools_for("full")[0]
    assert bash.parameters["type"] == "object"
    assert bash.parameters["required"] == ["command"]
    assert bash.parameters["additionalProperties"] is False
    j = bash.to_json()
    assert j["type"] == "function" and j["function"]["name"] == "bash"
    assert j["function"]["parameters"] == bash.parameters
    assert isinstance(bash.description, str) and bash.description
    with pytest.raises(ValueError, match="access: expected 'none', 'files' or 'full', got 'root'"):
        bashkit.tools_for("root")


def test_random_session_id():
    a, b = bashkit.random_session_id(), bashkit.random_session_id()
    assert len(a) == 16 and a != b and all(c in "0123456789abcdef" for c in a)
