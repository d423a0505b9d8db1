"""bashkit: an in-process bash sandbox for agents.

The sandbox API of bashkit-cpp (sandbox/README.md) with the same names, keyword arguments and defaults::

    import bashkit
    sb = bashkit.BashkitSandbox(instance_id="demo",
                                network=bashkit.Network.allow(hosts=["api.github.com"]))
    with sb.session("s1") as s:
        r = s.execute("ls | wc -l")
        print(r.exit_code, r.stdout, r.stderr)

Refused options raise ValueError with the C++ messages; failures to start or use a sandbox raise
SandboxError (a RuntimeError). The GIL is released while a command runs; SandboxSession.cancel() stops it
from another thread, and Ctrl-C (KeyboardInterrupt) in the main thread cancels it too.
"""

from ._bashkit import (  # noqa: F401
    BashkitSandbox,
    CommandContext,
    DangerousLocalSandbox,
    EgressPolicy,
    ExecutionLimits,
    FsLimits,
    GitHubBinding,
    GitIdentity,
    HeaderBinding,
    LocalDockerSandbox,
    MistralApiBinding,
    MistralSandbox,
    MistralSandboxSettings,
    Network,
    NoSandbox,
    ProcessOptions,
    ProcessResult,
    Sandbox,
    SandboxAccess,
    SandboxAttributes,
    SandboxError,
    SandboxExecutionResult,
    SandboxHook,
    SandboxSession,
    ToolSpec,
    WorkspaceHeaderBindings,
    __version__,
    binding_kind,
    binding_to_json,
    egress_from_json,
    egress_to_json,
    network_from_json,
    network_to_json,
    analyze,
    random_session_id,
    run_process,
    tools_for,
)

__all__ = [
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
    "SandboxError",
    "SandboxExecutionResult",
    "SandboxHook",
    "SandboxSession",
    "ToolSpec",
    "WorkspaceHeaderBindings",
    "binding_kind",
    "binding_to_json",
    "egress_from_json",
    "egress_to_json",
    "network_from_json",
    "network_to_json",
    "analyze",
    "random_session_id",
    "run_process",
    "tools_for",
]
