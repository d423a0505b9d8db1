"""The value types: Network, EgressPolicy, bindings, results, access, limits, tool specs."""
import datetime

import pytest

import bashkit
from bashkit import (EgressPolicy, ExecutionLimits, FsLimits, GitHubBinding, HeaderBinding, MistralApiBinding,
                     Network, SandboxAccess, SandboxExecutionResult, WorkspaceHeaderBindings)


def test_version():
    assert bashkit.__version__.count(".") == 2


def test_network():
    assert Network.none().kind == "none"
    assert Network.all().kind == "all"
    n = Network.allow(hosts=["api.github.com", "Example.com:8443"])
    assert n.kind == "allow"
    assert n.hosts == ["api.github.com", "example.com:8443"]
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
    assert Network.allow(["a.com"]) == Network.allow(hosts=["a.com"])


def test_network_refusals():
    with pytest.raises(ValueError, match=r"\*"):
        Network.allow(hosts=["*.github.com"])
    with pytest.raises(TypeError):
        Network.allow(hosts="api.github.com:x:y", extra=1)


def test_egress_policy():
    assert EgressPolicy.block_all().kind == "block_all"
    assert EgressPolicy.allow_all().describe() == "allow_all"
    c = EgressPolicy.custom(allow_cidrs=["10.0.0.0/8", "2001:db8::/32", "1.2.3.4"])
    assert c.kind == "custom"
    assert c.allow_cidrs == ["10.0.0.0/8", "2001:db8::/32", "1.2.3.4"]
    assert c.describe() == "custom(10.0.0.0/8, 2001:db8::/32, 1.2.3.4)"
    assert repr(c) == "EgressPolicy.custom(allow_cidrs=['10.0.0.0/8', '2001:db8::/32', '1.2.3.4'])"
    assert EgressPolicy.from_network(Network.none()) == EgressPolicy.block_all()
    assert EgressPolicy.from_network(network=Network.all()) == EgressPolicy.allow_all()
    with pytest.raises(ValueError) as e:
        EgressPolicy.custom(["10.0.0.1/8"])
    assert str(e.value) == "EgressPolicy.custom: invalid CIDR '10.0.0.1/8' (host bits set)"
    with pytest.raises(ValueError) as e:
        EgressPolicy.custom(["example.com"])
    assert str(e.value) == "EgressPolicy.custom: invalid CIDR 'example.com'"
    with pytest.raises(ValueError) as e:
        EgressPolicy.from_network(Network.allow(["api.github.com"]))
    assert str(e.value) == ("EgressPolicy: allow(api.github.com) names hosts, which an egress policy "
                            "(IP prefixes) cannot express")


def test_binding_defaults_and_kinds():
    h = HeaderBinding()
    assert (h.host, h.header, h.value, h.path_prefix, h.prefix, h.suffix) == ("", "", "", "/", "", "")
    g = GitHubBinding()
    assert (g.repos, g.ttl_seconds, g.host, g.token) == ([], 3600, "github.com", "")
    m = MistralApiBinding()
    assert (m.ttl_seconds, m.api_key) == (3600, "")
    assert bashkit.binding_kind(h) == "HeaderBinding"
    assert bashkit.binding_kind(g) == "GitHubBinding"
    assert bashkit.binding_kind(m) == "MistralApiBinding"
    h2 = HeaderBinding(host="api.x.com", header="Authorization", value="s3cret", prefix="Bearer ")
    assert h2.host == "api.x.com" and h2.prefix == "Bearer "
    assert "s3cret" not in repr(h2)
    assert repr(h2) == ("HeaderBinding(host='api.x.com', header='Authorization', value='***', path_prefix='/', "
                        "prefix='Bearer ', suffix='')")
    assert h2 == HeaderBinding(host="api.x.com", header="Authorization", value="s3cret", prefix="Bearer ")
    assert h2 != h
    with pytest.raises(TypeError, match="unexpected keyword argument 'hots'"):
        HeaderBinding(hots="x")
    with pytest.raises(TypeError):
        bashkit.binding_kind("HeaderBinding")


def validate_error(binding):
    with pytest.raises(ValueError) as e:
        WorkspaceHeaderBindings([binding]).validate()
    return str(e.value)


def test_binding_validation():
    WorkspaceHeaderBindings([HeaderBinding(host="api.x.com", header="Authorization", value="s")]).validate()
    assert validate_error(HeaderBinding(host="api.x.com", header="Bad Header", value="s")) == \
        "header_bindings: HeaderBinding #1: header: not a valid header name 'Bad Header'"
    assert validate_error(HeaderBinding(host="api.x.com", header="X", value="")) == \
        "header_bindings: HeaderBinding #1: value: must not be empty"
    assert validate_error(HeaderBinding(host="api.x.com", header="X", value="s", path_prefix="v1")) == \
        "header_bindings: HeaderBinding #1: path_prefix: must start with '/'"
    assert validate_error(GitHubBinding()) == \
        "header_bindings: GitHubBinding #1: repos: at least one 'owner/name' is required"
    assert validate_error(GitHubBinding(repos=["justone"])) == \
        "header_bindings: GitHubBinding #1: repos: expected 'owner/name', got 'justone'"
    assert validate_error(GitHubBinding(repos=["a/b"], ttl_seconds=0)) == \
        "header_bindings: GitHubBinding #1: ttl_seconds: must be positive"
    assert validate_error(MistralApiBinding(ttl_seconds=-1)) == \
        "header_bindings: MistralApiBinding #1: ttl_seconds: must be positive"


def test_workspace_header_bindings():
    w = WorkspaceHeaderBindings()
    assert w.empty() and len(w) == 0
    w.add(HeaderBinding(host="a.com", header="X", value="v"))
    w.add(GitHubBinding(repos=["o/r"], token="t"))
    assert not w.empty() and len(w) == 2
    kinds = [bashkit.binding_kind(b) for b in w]
    assert kinds == ["HeaderBinding", "GitHubBinding"]
    assert isinstance(w.bindings[1], GitHubBinding) and w.bindings[1].repos == ["o/r"]
    with pytest.raises(TypeError, match="expected HeaderBinding, GitHubBinding or MistralApiBinding, got str"):
        w.add("nope")


def test_execution_result():
    r = SandboxExecutionResult()
    assert (r.exit_code, r.stdout, r.stderr, r.timed_out) == (0, "", "", False)
    r = SandboxExecutionResult(exit_code=3, stdout="out\n", stderr="err", timed_out=True)
    assert (r.exit_code, r.stdout, r.stderr, r.timed_out) == (3, "out\n", "err", True)
    assert r.stdout_bytes == b"out\n"
    assert repr(r) == "SandboxExecutionResult(exit_code=3, stdout='out\\n', stderr='err', timed_out=True)"
    assert r == SandboxExecutionResult(exit_code=3, stdout="out\n", stderr="err", timed_out=True)
    with pytest.raises(TypeError):
        SandboxExecutionResult(3)  # keyword arguments only


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
