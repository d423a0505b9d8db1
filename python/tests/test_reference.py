"""Conformance with the reference of the Sandbox API, section by section: every signature (names, order,
keyword-only, defaults), every attribute (value and type, on the class and on an instance), every refusal
(type and message) and every example that does not need Mistral Cloud. python/README.md lists what is out
of scope and why."""
import asyncio
import inspect

import pytest

import bashkit
import bashkit as agents  # the reference's examples say `agents.X`
from bashkit import (BashkitSandbox, DangerousLocalSandbox, EgressPolicy, GitHubBinding, GitIdentity, HeaderBinding,
                     LocalDockerSandbox, MistralApiBinding, MistralSandbox, Network, NoSandbox, Sandbox,
                     SandboxExecutionResult, SandboxHook, WorkspaceHeaderBindings)

REQUIRED = inspect.Parameter.empty
NO_ENV = {}

# ---------------------------------------------------------------------------------------- signatures

# (class or callable, [(parameter, default)] in the reference's order); all keyword-only unless POSITIONAL.
SIGNATURES = [
    (NoSandbox, [("hooks", ())]),
    (BashkitSandbox, [("instance_id", None), ("network", None), ("block_private_ips", True), ("hooks", ()),
                      ("access", None)]),
    (DangerousLocalSandbox, [("shell", None), ("default_exec_timeout_seconds", None), ("workspace", None),
                             ("delete_on_cleanup", None), ("hooks", ()), ("access", None)]),
    (LocalDockerSandbox, [("image", None), ("supports_background_processes", None), ("shell", None),
                          ("default_exec_timeout_seconds", None), ("setup_script", None),
                          ("setup_script_timeout_seconds", None), ("network", None), ("hooks", ()), ("access", None)]),
    (MistralSandbox, [("image", None), ("supports_background_processes", None), ("instance_type", None),
                      ("region", None), ("name_prefix", None), ("ttl_seconds", None), ("idle_timeout_seconds", None),
                      ("default_exec_timeout_seconds", None), ("privileged", None), ("docker_daemon_enabled", None),
                      ("docker_daemon_network_mode", None), ("enable_light_sleep", None), ("setup_script", None),
                      ("setup_script_timeout_seconds", None), ("readiness_max_retries", None),
                      ("readiness_interval_seconds", None), ("readiness_probe_timeout_seconds", None),
                      ("wait_ready_timeout_seconds", None), ("enable_mesh", None), ("network", None),
                      ("egress", None), ("header_bindings", ()), ("pre_provisioned_sandbox_id", None), ("hooks", ()),
                      ("access", None)]),
    (GitIdentity, [("name", REQUIRED), ("email", REQUIRED)]),
    (EgressPolicy, [("mode", "block_all"), ("allow_cidrs", ())]),
    (EgressPolicy.custom, [("allow_cidrs", REQUIRED)]),
    (Network, [("mode", "none"), ("hosts", ())]),
    (Network.allow, [("hosts", REQUIRED)]),
    (HeaderBinding, [("host", REQUIRED), ("header", REQUIRED), ("secret_name", REQUIRED), ("path_prefix", "/"),
                     ("prefix", ""), ("suffix", "")]),
    (GitHubBinding, [("repos", REQUIRED), ("ttl_seconds", 3600), ("host", "github.com")]),
    (MistralApiBinding, [("ttl_seconds", 3600)]),
    (WorkspaceHeaderBindings, []),
]

# Parameters this module adds after the reference's (python/README.md says what each does).
EXTENSIONS = {
    "BashkitSandbox": ["header_bindings", "secrets", "default_exec_timeout_seconds", "base_dir", "ephemeral",
                       "limits", "fs_limits"],
    "LocalDockerSandbox": ["docker", "runner"],
    "MistralSandbox": ["endpoint", "api_token", "env"],
    "GitHubBinding": ["token"],
    "MistralApiBinding": ["api_key"],
}


def params_of(obj):
    sig = inspect.signature(obj)
    return [p for p in sig.parameters.values() if p.name not in ("self", "cls")]


@pytest.mark.parametrize("obj,expected", SIGNATURES, ids=[o.__qualname__ for o, _ in SIGNATURES])
def test_signature(obj, expected):
    params = params_of(obj)
    names = [p.name for p in params]
    assert names[:len(expected)] == [n for n, _ in expected]
    assert names[len(expected):] == EXTENSIONS.get(obj.__qualname__, [])
    for p, (name, default) in zip(params, expected):
        assert p.kind is inspect.Parameter.KEYWORD_ONLY, name
        assert p.default == default, name
    for p in params[len(expected):]:
        assert p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is not REQUIRED, p.name


def test_positional_arguments_are_refused_where_the_reference_has_a_star():
    for make in (lambda: BashkitSandbox("id"), lambda: GitIdentity("Ada", "a@b"), lambda: Network.allow(["a.com"]),
                 lambda: EgressPolicy.custom(["10.0.0.0/8"]), lambda: NoSandbox([]), lambda: Network("none"),
                 lambda: HeaderBinding("h", "X", "S"), lambda: GitHubBinding("all"), lambda: MistralApiBinding(60)):
        with pytest.raises(TypeError):
            make()


def test_factories_take_no_arguments():
    for f in (Network.none, Network.all, EgressPolicy.block_all, EgressPolicy.allow_all):
        assert params_of(f) == []


def test_execution_result_is_positional_and_required():
    assert [(p.name, p.kind, p.default) for p in params_of(SandboxExecutionResult)][:3] == [
        ("exit_code", inspect.Parameter.POSITIONAL_OR_KEYWORD, REQUIRED),
        ("stdout", inspect.Parameter.POSITIONAL_OR_KEYWORD, REQUIRED),
        ("stderr", inspect.Parameter.POSITIONAL_OR_KEYWORD, REQUIRED)] if _introspectable(SandboxExecutionResult) else True
    r = SandboxExecutionResult(0, "out", "err")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "out", "err")
    assert SandboxExecutionResult(exit_code=1, stdout="", stderr="x").exit_code == 1
    with pytest.raises(TypeError):
        SandboxExecutionResult(0, "out")


def _introspectable(obj):
    try:
        inspect.signature(obj)
        return True
    except (TypeError, ValueError):
        return False


# ---------------------------------------------------------------------------------------- None = the default

NONE_ACCEPTED = [
    (BashkitSandbox, ["instance_id", "network", "access"]),
    (DangerousLocalSandbox, ["shell", "default_exec_timeout_seconds", "workspace", "delete_on_cleanup", "access"]),
    (LocalDockerSandbox, ["image", "supports_background_processes", "shell", "default_exec_timeout_seconds",
                          "setup_script", "setup_script_timeout_seconds", "network", "access"]),
    (MistralSandbox, [n for n, d in SIGNATURES[4][1] if d is None]),
]


@pytest.mark.parametrize("cls,names", NONE_ACCEPTED, ids=[c.__name__ for c, _ in NONE_ACCEPTED])
def test_none_means_the_default(cls, names):
    extra = {"env": NO_ENV} if cls is MistralSandbox else {}
    default = cls(**extra)
    every = cls(**{n: None for n in names}, **extra)
    for n in names:
        cls(**{n: None}, **extra)
    assert every.network == default.network
    assert every.access == default.access
    assert every.supports_background_processes == default.supports_background_processes


# ---------------------------------------------------------------------------------------- attributes

# (class, supported_network, supported_header_bindings, supported_access, delete_on_cleanup,
#  supports_background_processes): what each type declares, readable on the class and on an instance.
ATTRIBUTES = [
    (NoSandbox, ("none",), (), "none", True, False),
    (BashkitSandbox, ("none", "all", "allow"), (HeaderBinding, GitHubBinding, MistralApiBinding), "full", False, True),
    (DangerousLocalSandbox, ("all",), (), "full", True, True),
    (LocalDockerSandbox, ("none", "all"), (), "full", True, True),
    (MistralSandbox, ("none", "all"), (GitHubBinding, MistralApiBinding, WorkspaceHeaderBindings), "full", True, True),
]


@pytest.mark.parametrize("row", ATTRIBUTES, ids=[r[0].__name__ for r in ATTRIBUTES])
def test_declared_attributes(row, tmp_path):
    cls, network, bindings, access, delete, background = row
    instance = cls(env=NO_ENV) if cls is MistralSandbox else cls()
    for holder in (cls, instance):
        assert holder.supported_network == network and type(holder.supported_network) is tuple
        assert all(type(m) is str for m in holder.supported_network)
        assert holder.supported_header_bindings == bindings and type(holder.supported_header_bindings) is tuple
        assert all(isinstance(t, type) for t in holder.supported_header_bindings)
        assert holder.supported_access == access and type(holder.supported_access) is str
        assert holder.delete_on_cleanup is delete
        assert holder.supports_background_processes is background
    assert isinstance(instance, Sandbox)
    assert instance.access == access  # None: the widest the type supports, as a string


def test_sandbox_base():
    assert Sandbox.supported_network == ("none",)
    assert Sandbox.supported_access == "none"
    with pytest.raises(TypeError, match="Sandbox cannot be built itself"):
        Sandbox()


def test_access_levels_are_strings():
    sb = BashkitSandbox(access="files")
    assert sb.access == "files" and type(sb.access) is str
    assert BashkitSandbox().access == "full"
    for level in ("none", "files", "full"):
        assert BashkitSandbox(access=level).access == level
    s = BashkitSandbox(access="files", ephemeral=True).session("x")
    assert s.access == "files" and s.access != "full"  # the session's level compares equal to its name


def test_network_defaults():
    assert BashkitSandbox().network == Network.none()
    assert NoSandbox().network == Network.none()
    assert DangerousLocalSandbox().network == Network.all()  # always
    assert LocalDockerSandbox().network == Network.none()
    assert MistralSandbox(env=NO_ENV).network == Network.none()


def test_dangerous_local_delete_on_cleanup(tmp_path):
    assert DangerousLocalSandbox().delete_on_cleanup is True
    assert DangerousLocalSandbox(workspace=str(tmp_path)).delete_on_cleanup is False
    assert DangerousLocalSandbox(workspace=str(tmp_path), delete_on_cleanup=True).delete_on_cleanup is True
    assert DangerousLocalSandbox.default_workspace_base().endswith("/.cache/mistral-vibe-harness-local-host")


def test_dangerous_local_relative_workspace(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert DangerousLocalSandbox(workspace="ws").workspace == str(tmp_path / "ws")


# ---------------------------------------------------------------------------------------- network

def test_network_modes():
    assert (Network().mode, Network().hosts) == ("none", ())
    assert Network.none() == Network(mode="none")
    assert Network.all() == Network(mode="all") and Network.all().mode == "all"
    n = Network.allow(hosts=["api.github.com", "example.com:8443"])
    assert n == Network(mode="allow", hosts=("api.github.com", "example.com:8443"))
    assert n.mode == "allow" and n.hosts == ("api.github.com", "example.com:8443") and type(n.hosts) is tuple
    assert n.reaches("api.github.com") and n.reaches("example.com:8443") and not n.reaches("example.com")
    assert Network.all().reaches("anything.org") and not Network.none().reaches("anything.org")
    assert isinstance(Network.none(), Network) and hash(Network.none()) == hash(Network(mode="none"))


def test_egress_modes():
    assert (EgressPolicy().mode, EgressPolicy().allow_cidrs) == ("block_all", ())
    assert EgressPolicy.block_all() == EgressPolicy()
    assert EgressPolicy.allow_all().mode == "allow_all"
    c = EgressPolicy.custom(allow_cidrs=["203.0.113.0/24"])
    assert c == EgressPolicy(mode="custom", allow_cidrs=("203.0.113.0/24",))
    assert c.allow_cidrs == ("203.0.113.0/24",) and type(c.allow_cidrs) is tuple


# ---------------------------------------------------------------------------------------- bindings

def test_binding_kinds_and_fields():
    h = HeaderBinding(host="api.example.com", header="Authorization", secret_name="EXAMPLE_TOKEN", prefix="Bearer ")
    assert (h.kind, HeaderBinding.kind) == ("header_binding", "header_binding")
    assert (h.host, h.header, h.secret_name, h.path_prefix, h.prefix, h.suffix) == (
        "api.example.com", "Authorization", "EXAMPLE_TOKEN", "/", "Bearer ", "")
    g = GitHubBinding(repos=("octo/repo",))
    assert (g.kind, g.repos, g.ttl_seconds, g.host) == ("github", ("octo/repo",), 3600, "github.com")
    assert GitHubBinding.kind == "github"
    assert GitHubBinding(repos="all").repos == "all"
    m = MistralApiBinding()
    assert (m.kind, m.run_as, m.ttl_seconds) == ("mistral_api", "auto", 3600)
    assert (MistralApiBinding.kind, MistralApiBinding.run_as) == ("mistral_api", "auto")
    w = WorkspaceHeaderBindings()
    assert (w.kind, WorkspaceHeaderBindings.kind) == ("workspace_header_bindings", "workspace_header_bindings")
    assert w == WorkspaceHeaderBindings()
    assert [bashkit.binding_kind(b) for b in (h, g, m, w)] == ["header_binding", "github", "mistral_api",
                                                               "workspace_header_bindings"]


def test_header_binding_secret_by_name(tmp_path):
    h = HeaderBinding(host="api.example.com", header="X-Key", secret_name="EXAMPLE_KEY")
    sb = BashkitSandbox(header_bindings=[h], secrets={"EXAMPLE_KEY": "s3cret"}, base_dir=str(tmp_path))
    assert sb.header_bindings == (h,)
    assert "s3cret" not in repr(sb.header_bindings)
    BashkitSandbox(header_bindings=[h], secrets=lambda name: {"EXAMPLE_KEY": "v"}.get(name))
    with pytest.raises(ValueError) as e:
        BashkitSandbox(header_bindings=[h], secrets={})
    assert str(e.value) == ("header_bindings: HeaderBinding #1: no secret named 'EXAMPLE_KEY' (pass "
                            "secrets={'EXAMPLE_KEY': ...} to the sandbox, or set it in the environment)")
    with sb.session("s") as s:  # the script never sees the secret
        r = s.execute("env; set; declare -p")
        assert "s3cret" not in r.stdout


def test_github_all_reaches_every_repository():
    sb = BashkitSandbox(header_bindings=[GitHubBinding(repos="all", token="t")], ephemeral=True)
    assert sb.header_bindings[0].repos == "all"
    assert MistralSandbox(env=NO_ENV, header_bindings=[GitHubBinding(repos="all")]).create_request("c")[
        "header_bindings"] == [{"type": "GitHubBinding", "repos": "all", "ttl_seconds": 3600, "host": "github.com"}]


def test_workspace_header_bindings_is_a_marker_for_mistral():
    sb = MistralSandbox(env=NO_ENV, header_bindings=[WorkspaceHeaderBindings()])
    assert sb.create_request("c")["workspace_header_bindings"] is True
    assert sb.header_bindings == (WorkspaceHeaderBindings(),)


# ---------------------------------------------------------------------------------------- refusals

REFUSALS = [
    # access wider than supported_access
    (lambda: NoSandbox(access="files"), TypeError, None),  # NoSandbox has no access option
    (lambda: BashkitSandbox(access="root"), ValueError, "access: expected 'none', 'files' or 'full', got 'root'"),
    (lambda: BashkitSandbox(access=2), TypeError, "BashkitSandbox: access must be 'none', 'files', 'full' or None, not int"),
    # network outside supported_network
    (lambda: LocalDockerSandbox(network=Network.allow(hosts=["pypi.org"])), ValueError,
     "LocalDockerSandbox does not support network=allow; supported: none, all"),
    (lambda: MistralSandbox(env=NO_ENV, network=Network.allow(hosts=["pypi.org"])), ValueError,
     "MistralSandbox does not support network=allow; supported: none, all"),
    (lambda: DangerousLocalSandbox(network=Network.all()), TypeError, None),  # no network option: always all
    # header bindings outside supported_header_bindings
    (lambda: MistralSandbox(env=NO_ENV, header_bindings=[HeaderBinding(host="a.com", header="X", secret_name="S")]),
     ValueError, "MistralSandbox does not support header binding HeaderBinding; supported: GitHubBinding, "
                 "MistralApiBinding, WorkspaceHeaderBindings"),
    (lambda: BashkitSandbox(header_bindings=[WorkspaceHeaderBindings()]), ValueError,
     "BashkitSandbox does not support header binding WorkspaceHeaderBindings; supported: HeaderBinding, "
     "GitHubBinding, MistralApiBinding"),
    (lambda: BashkitSandbox(header_bindings=["x"]), TypeError,
     "BashkitSandbox: header_bindings: expected HeaderBinding, GitHubBinding, MistralApiBinding or "
     "WorkspaceHeaderBindings, got str"),
    # shells
    (lambda: LocalDockerSandbox(shell="zsh"), ValueError, "LocalDockerSandbox: shell must be 'bash' or 'sh', got 'zsh'"),
    (lambda: DangerousLocalSandbox(shell="zsh"), ValueError,
     "DangerousLocalSandbox: shell must be 'bash' or 'sh', got 'zsh'"),
    # hooks
    (lambda: DangerousLocalSandbox(hooks=[GitIdentity(name="a", email="a@b")]), ValueError,
     "DangerousLocalSandbox does not support the GitIdentity hook: it would overwrite the user's own ~/.gitconfig"),
    (lambda: BashkitSandbox(hooks=["GitIdentity"]), TypeError, "hooks: expected SandboxHook instances, got str"),
    (lambda: GitIdentity(name="", email="a@b"), ValueError, "GitIdentity: name must not be empty"),
    # MistralSandbox's network and egress rules
    (lambda: MistralSandbox(env=NO_ENV, egress=EgressPolicy.block_all()), ValueError,
     "MistralSandbox: egress accepts only EgressPolicy.custom(allow_cidrs=...); block_all() is what egress_policy is "
     "for Network.none(): pass network= instead"),
    (lambda: MistralSandbox(env=NO_ENV, network=Network.all(), egress=EgressPolicy.allow_all()), ValueError,
     "MistralSandbox: egress accepts only EgressPolicy.custom(allow_cidrs=...); allow_all() is what egress_policy is "
     "for Network.all(): pass network= instead"),
    (lambda: MistralSandbox(env=NO_ENV, network=Network.all(), egress=EgressPolicy.custom(allow_cidrs=["10.0.0.0/8"])),
     ValueError, "MistralSandbox: egress=EgressPolicy.custom(...) adds addresses to network=Network.none(); with "
                 "network=Network.all() every address is allowed already"),
    (lambda: MistralSandbox(env=NO_ENV, region="fra"), ValueError,
     "This network policy is not supported in region 'fra'; it is supported only in nl-north-1. Pass "
     "network=Network.all() or a supported region."),
    # Network and EgressPolicy
    (lambda: Network.allow(hosts=[]), ValueError, "Network.allow: hosts needs at least one host or host:port entry"),
    (lambda: Network.allow(hosts="api.github.com"), TypeError,
     "Network: hosts must be a sequence of str, not a single str (wrap it in a list)"),
    (lambda: Network(mode="some"), ValueError, "Network: mode must be one of 'none', 'all', 'allow', got 'some'"),
    (lambda: Network(mode="none", hosts=("a.com",)), ValueError, "Network: hosts is only for mode='allow' (got mode='none')"),
    (lambda: EgressPolicy(mode="open"), ValueError,
     "EgressPolicy: mode must be one of 'block_all', 'allow_all', 'custom', got 'open'"),
    (lambda: EgressPolicy.custom(allow_cidrs=["10.0.0.1/8"]), ValueError,
     "EgressPolicy.custom: invalid CIDR '10.0.0.1/8' (host bits set)"),
    # bindings
    (lambda: GitHubBinding(repos="octo/repo"), ValueError,
     "GitHubBinding: repos must be 'all' or a sequence of 'owner/name' entries, got 'octo/repo'"),
    (lambda: HeaderBinding(host="a.com", header="X"), TypeError, None),  # secret_name is required
    (lambda: HeaderBinding(host="a.com", header="X", secret_name="S", value="v"), TypeError, None),
    # types name the option
    (lambda: BashkitSandbox(instance_id=3), TypeError, "BashkitSandbox: instance_id must be a str or None, not int"),
    (lambda: BashkitSandbox(block_private_ips="no"), TypeError, "BashkitSandbox: block_private_ips must be a bool, not str"),
    (lambda: BashkitSandbox(network="all"), TypeError, "BashkitSandbox: network must be a Network or None, not str"),
    (lambda: MistralSandbox(env=NO_ENV, ttl_seconds="1h"), TypeError,
     "MistralSandbox: ttl_seconds must be an int or None, not str"),
    (lambda: MistralSandbox(env=NO_ENV, ttl_seconds=1.5), ValueError, "MistralSandbox: ttl_seconds must be a whole number, got 1.5"),
    (lambda: MistralSandbox(env=NO_ENV, privileged="yes"), TypeError,
     "MistralSandbox: privileged must be a bool or None, not str"),
    (lambda: DangerousLocalSandbox(default_exec_timeout_seconds="10"), TypeError,
     "DangerousLocalSandbox: default_exec_timeout_seconds must be an int or None, not str"),
    (lambda: LocalDockerSandbox(image=5), TypeError, "LocalDockerSandbox: image must be a str or None, not int"),
    (lambda: BashkitSandbox(hooks=None), TypeError, "BashkitSandbox: hooks must be a sequence, not None"),
]


@pytest.mark.parametrize("make,error,message", REFUSALS, ids=[str(i) for i in range(len(REFUSALS))])
def test_refusal(make, error, message):
    with pytest.raises(error) as e:
        make()
    if message is not None:
        assert str(e.value) == message


def test_whole_floats_are_ints():
    assert MistralSandbox(env=NO_ENV, ttl_seconds=60.0).settings.ttl_seconds == 60


# ---------------------------------------------------------------------------------------- MistralSandbox

def test_mistral_documented_combinations():
    sb = MistralSandbox(env=NO_ENV, egress=EgressPolicy.custom(allow_cidrs=["203.0.113.0/24"]))
    assert sb.network == Network.none()
    assert sb.egress_policy == EgressPolicy.custom(allow_cidrs=["203.0.113.0/24"])
    assert MistralSandbox(env=NO_ENV).egress_policy == EgressPolicy.block_all()
    assert MistralSandbox(env=NO_ENV, network=Network.all()).egress_policy == EgressPolicy.allow_all()
    assert isinstance(sb.egress_policy, EgressPolicy)


def test_mistral_authored_settings_and_env():
    sb = MistralSandbox(env={"AGENTS_SDK_KOYEB_SANDBOX_INSTANCE_TYPE": "small",
                             "AGENTS_SDK_KOYEB_SANDBOX_IMAGE": "registry.example/img:1"}, ttl_seconds=120, region=None)
    assert dict(sb.authored_settings) == {"ttl_seconds": 120}
    assert sb.settings.instance_type == "small" and sb.settings.image == "registry.example/img:1"
    with pytest.raises(TypeError):
        sb.authored_settings["x"] = 1  # read-only mapping
    assert MistralSandbox(env=NO_ENV).settings.instance_type == "medium"


def test_mistral_docker_daemon_is_privileged():
    sb = MistralSandbox(env=NO_ENV, docker_daemon_enabled=True)
    assert sb.settings.privileged is True and sb.create_request("c")["privileged"] is True


def test_mistral_image_goes_to_the_service():
    assert MistralSandbox(env=NO_ENV, image="registry.example/img:1").create_request("c")["image"] == \
        "registry.example/img:1"
    assert "image" not in MistralSandbox(env=NO_ENV).create_request("c")


# ---------------------------------------------------------------------------------------- hooks

class Recorder(SandboxHook):
    def __init__(self, label, *, times=1):
        super().__init__()
        self.label = label
        self.times = times
        self.events = []

    async def on_create(self, ctx):
        r = await ctx.sandbox.execute("echo created-%s" % self.label)
        await ctx.sandbox.write_file("hook.txt", r.stdout)
        self.events.append(("create", r.stdout))

    async def on_destroy(self, ctx):
        self.events.append(("destroy", await ctx.sandbox.read_file("hook.txt")))


def test_async_hooks_run(tmp_path):
    h = Recorder("a")
    sb = BashkitSandbox(hooks=[h], base_dir=str(tmp_path))
    with sb.session("s"):
        pass
    assert h.events == [("create", "created-a\n"), ("destroy", "created-a\n")]


def test_async_hooks_on_the_callers_loop(tmp_path):
    seen = {}

    class OnLoop(SandboxHook):
        async def on_create(self, ctx):
            seen["loop"] = asyncio.get_running_loop()
            seen["out"] = (await ctx.sandbox.execute("echo hi")).stdout

    async def main():
        sb = BashkitSandbox(hooks=[OnLoop()], base_dir=str(tmp_path))
        async with sb.session("s") as s:
            r = await s.execute("echo $((6 * 7))")
            await s.write_file("f", "x")
            return asyncio.get_running_loop(), r.stdout, await s.read_file("f")

    loop, out, content = asyncio.run(main())
    assert (out, content) == ("42\n", "x")
    assert seen["loop"] is loop and seen["out"] == "hi\n"


def test_sync_hooks_get_ctx_sandbox(tmp_path):
    class Sync(SandboxHook):
        def on_create(self, ctx):
            ctx.sandbox.write_file("a.txt", "from hook")

    sb = BashkitSandbox(hooks=[Sync()], base_dir=str(tmp_path))
    with sb.session("s") as s:
        assert s.read_file("a.txt") == "from hook"


def test_hook_failure_fails_the_session(tmp_path):
    class Fails(SandboxHook):
        async def on_create(self, ctx):
            raise RuntimeError("no way")

    with pytest.raises(RuntimeError, match="no way"):
        BashkitSandbox(hooks=[Fails()], base_dir=str(tmp_path)).open("s")


def test_hook_arguments_are_recorded():
    h = Recorder("x", times=3)
    assert h.to_unified_state() == {"label": "x", "times": 3}
    again = Recorder.from_unified_state(h.to_unified_state())
    assert isinstance(again, Recorder) and (again.label, again.times) == ("x", 3)

    class NoArgs(SandboxHook):
        pass

    assert NoArgs().to_unified_state() == {}
    assert isinstance(NoArgs.from_unified_state({}), NoArgs)

    class Bad(SandboxHook):
        def __init__(self, fn):
            super().__init__()

    with pytest.raises(TypeError, match="not a JSON value"):
        Bad(print).to_unified_state()


def test_hook_subclass_may_replace_the_contract():
    class Own(SandboxHook):
        def __init__(self, n):
            super().__init__()
            self.n = n

        def to_unified_state(self):
            return {"count": self.n}

        @classmethod
        def from_unified_state(cls, state):
            return cls(state["count"])

    assert Own.from_unified_state(Own(4).to_unified_state()).n == 4


def test_default_hook_methods_are_async_no_ops():
    assert inspect.iscoroutinefunction(inspect.unwrap(SandboxHook.on_create))
    assert inspect.iscoroutinefunction(inspect.unwrap(SandboxHook.on_destroy))


def test_git_identity(tmp_path):
    from bashkit.pattern.sandbox_hook import GitIdentity as G
    assert G is GitIdentity and issubclass(GitIdentity, SandboxHook)
    g = agents.pattern.sandbox_hook.GitIdentity(name="Acme Bot", email="bot@acme.com")  # the reference's example
    assert g.to_unified_state() == {"name": "Acme Bot", "email": "bot@acme.com"}
    assert GitIdentity.from_unified_state({"name": "Acme Bot", "email": "bot@acme.com"}) == g
    with BashkitSandbox(hooks=[g], base_dir=str(tmp_path)).session("s") as s:
        assert s.execute("git config user.name; git config user.email").stdout == "Acme Bot\nbot@acme.com\n"


# ---------------------------------------------------------------------------------------- examples

def test_examples_of_the_guide():
    agents.MistralSandbox(env=NO_ENV)
    sb = agents.MistralSandbox(env=NO_ENV, instance_type="large", idle_timeout_seconds=300, ttl_seconds=2 * 60 * 60)
    assert (sb.settings.instance_type, sb.settings.idle_timeout_seconds, sb.settings.ttl_seconds) == ("large", 300, 7200)
    sb = agents.MistralSandbox(env=NO_ENV, region="fra", network=agents.Network.all())
    assert sb.settings.region == "fra"
    with pytest.raises(ValueError, match="not supported in region 'fra'"):
        agents.MistralSandbox(env=NO_ENV, region="fra")


def test_examples_of_the_reference():
    assert EgressPolicy.custom(allow_cidrs=["203.0.113.0/24"]).allow_cidrs == ("203.0.113.0/24",)
    assert agents.pattern.sandbox_hook.GitIdentity(name="Acme Bot", email="bot@acme.com").name == "Acme Bot"
    assert Network.allow(hosts=["api.github.com"]).reaches("api.github.com")
    HeaderBinding(host="api.example.com", header="Authorization", secret_name="EXAMPLE", prefix="Bearer ")
    BashkitSandbox(block_private_ips=False)
