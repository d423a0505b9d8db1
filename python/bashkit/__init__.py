"""bashkit: an in-process bash sandbox for agents.

The sandbox API of the Python agents SDK it is modelled on (python/README.md), run by bashkit-cpp::

    import bashkit
    sb = bashkit.BashkitSandbox(instance_id="demo",
                                network=bashkit.Network.allow(hosts=["api.github.com"]))
    with sb.session("s1") as s:
        r = s.execute("ls | wc -l")
        print(r.exit_code, r.stdout, r.stderr)

    async with sb.session("s2") as s:          # the same, awaited
        r = await s.execute("ls | wc -l")

Wrong types are TypeError naming the option; refused values are ValueError saying what is supported;
failures to start or use a sandbox raise SandboxError (a RuntimeError). The GIL is released while a command
runs; SandboxSession.cancel() stops it from another thread, and Ctrl-C (KeyboardInterrupt) in the main thread
cancels it too.
"""

from ._bashkit import (  # noqa: F401
    CommandContext,
    ExecutionLimits,
    FsLimits,
    MistralSandboxSettings,
    ProcessOptions,
    ProcessResult,
    SandboxAccess,
    SandboxAttributes,
    SandboxError,
    SandboxExecutionResult,
    SandboxSession,
    ToolSpec,
    __version__,
    analyze,
    random_session_id,
    run_process,
    tools_for,
)
from . import _bashkit as _C
from ._api import (  # noqa: F401
    AsyncSandboxSession,
    BashkitSandbox,
    DangerousLocalSandbox,
    EgressPolicy,
    GitHubBinding,
    GitIdentity,
    HeaderBinding,
    LocalDockerSandbox,
    MistralApiBinding,
    MistralSandbox,
    Network,
    NoSandbox,
    Sandbox,
    SandboxCallbackContext,
    SandboxHook,
    WorkspaceHeaderBindings,
)
from . import pattern  # noqa: F401,E402


def binding_kind(binding):
    """The binding's kind: "header_binding", "github", "mistral_api" or "workspace_header_bindings"."""
    kind = getattr(type(binding), "kind", None)
    if isinstance(kind, str):
        return kind
    if isinstance(binding, (_C.HeaderBinding, _C.GitHubBinding, _C.MistralApiBinding)):
        return _C.binding_kind(binding)
    raise TypeError("binding_kind: expected a header binding, got %s" % type(binding).__name__)


def network_to_json(network):
    """A network as the service protocol sends it: {"kind": "none"|"all"|"allow", "allow": [...]}."""
    return _C.network_to_json(network._impl if isinstance(network, Network) else network)


def network_from_json(state):
    n = _C.network_from_json(state)
    return Network(mode=n.kind, hosts=tuple(n.hosts))


def egress_to_json(egress):
    """An egress policy as the service protocol sends it: {"kind": ..., "allow_cidrs": [...]}."""
    return _C.egress_to_json(egress._impl if isinstance(egress, EgressPolicy) else egress)


def egress_from_json(state):
    e = _C.egress_from_json(state)
    return EgressPolicy(mode=e.kind, allow_cidrs=tuple(e.allow_cidrs))


def binding_to_json(binding):
    """A binding as the service protocol sends it (without secrets)."""
    from ._api import _bindings
    if isinstance(binding, WorkspaceHeaderBindings):
        return {"type": "WorkspaceHeaderBindings"}
    if isinstance(binding, HeaderBinding):
        return {"type": "HeaderBinding", "host": binding.host, "header": binding.header,
                "secret_name": binding.secret_name, "path_prefix": binding.path_prefix}
    _, c, _ = _bindings("binding_to_json", [binding], None, (GitHubBinding, MistralApiBinding))
    return _C.binding_to_json(c[0])


__all__ = [
    "AsyncSandboxSession",
    "BashkitSandbox",
    "CommandContext",
    "DangerousLocalSandbox",
    "EgressPolicy",
    "ExecutionLimits",
    "FsLimits",
    "GitHubBinding",
    "GitIdentity",
    "HeaderBinding",
    "LocalDockerSandbox",
    "MistralApiBinding",
    "MistralSandbox",
    "MistralSandboxSettings",
    "Network",
    "NoSandbox",
    "ProcessOptions",
    "ProcessResult",
    "Sandbox",
    "SandboxAccess",
    "SandboxAttributes",
    "SandboxCallbackContext",
    "SandboxError",
    "SandboxExecutionResult",
    "SandboxHook",
    "SandboxSession",
    "ToolSpec",
    "WorkspaceHeaderBindings",
    "analyze",
    "binding_kind",
    "binding_to_json",
    "egress_from_json",
    "egress_to_json",
    "network_from_json",
    "network_to_json",
    "pattern",
    "random_session_id",
    "run_process",
    "tools_for",
]
