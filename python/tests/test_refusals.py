"""Refused options are ValueError with the C++ messages; failures to start are SandboxError."""
import pytest

import bashkit
from bashkit import (BashkitSandbox, DangerousLocalSandbox, GitHubBinding, GitIdentity, HeaderBinding,
                     LocalDockerSandbox, MistralApiBinding, Network, NoSandbox, SandboxAccess)

REFUSALS = [
    (lambda: NoSandbox(access=SandboxAccess.files), "NoSandbox does not support access=files; supported: none"),
    (lambda: NoSandbox(access="full"), "NoSandbox does not support access=full; supported: none"),
    (lambda: NoSandbox(network=Network.all()), "NoSandbox does not support network=all; supported: none"),
    (lambda: NoSandbox(network=Network.allow(["a.com"])), "NoSandbox does not support network=allow; supported: none"),
    (lambda: NoSandbox(header_bindings=[HeaderBinding(host="a.com", header="X", value="s")]),
     "NoSandbox does not support header binding HeaderBinding; supported: none"),
    (lambda: DangerousLocalSandbox(hooks=[GitIdentity("a", "a@b")]),
     "DangerousLocalSandbox does not support the GitIdentity hook: it would overwrite the user's own ~/.gitconfig"),
    (lambda: DangerousLocalSandbox(shell="zsh"), "DangerousLocalSandbox: shell must be 'bash' or 'sh', got 'zsh'"),
    (lambda: DangerousLocalSandbox(default_exec_timeout_seconds=-1),
     "DangerousLocalSandbox: default_exec_timeout_seconds must be positive"),
    (lambda: DangerousLocalSandbox(network=Network.none()),
     "DangerousLocalSandbox does not support network=none; supported: all"),
    (lambda: DangerousLocalSandbox(header_bindings=[GitHubBinding(repos=["a/b"])]),
     "DangerousLocalSandbox does not support header binding GitHubBinding; supported: none"),
    (lambda: LocalDockerSandbox(network=Network.allow(["pypi.org"])),
     "LocalDockerSandbox does not support network=allow; supported: none, all"),
    (lambda: LocalDockerSandbox(image=""), "LocalDockerSandbox: image must not be empty"),
    (lambda: LocalDockerSandbox(header_bindings=[MistralApiBinding()]),
     "LocalDockerSandbox does not support header binding MistralApiBinding; supported: none"),
    (lambda: BashkitSandbox(default_exec_timeout_seconds=0),
     "BashkitSandbox: default_exec_timeout_seconds must be positive"),
    (lambda: BashkitSandbox(header_bindings=[GitHubBinding(repos=["justone"], token="t")]),
     "header_bindings: GitHubBinding #1: repos: expected 'owner/name', got 'justone'"),
    (lambda: GitIdentity("", "a@b"), "GitIdentity: name must not be empty"),
    (lambda: GitIdentity("a\nb", "a@b"), "GitIdentity: name and email must be one line"),
    (lambda: BashkitSandbox(access="root"), "access: expected 'none', 'files' or 'full', got 'root'"),
]


@pytest.mark.parametrize("make,message", REFUSALS, ids=[m for _, m in REFUSALS])
def test_refused_with_message(make, message):
    with pytest.raises(ValueError) as e:
        make()
    assert str(e.value) == message


def test_wrong_types_are_type_errors():
    with pytest.raises(TypeError, match="hooks: expected SandboxHook instances, got str"):
        BashkitSandbox(hooks=["GitIdentity"])
    with pytest.raises(TypeError, match="access: expected a SandboxAccess, a str or None"):
        BashkitSandbox(access=2)
    with pytest.raises(TypeError):
        BashkitSandbox("positional-instance-id")  # keyword arguments only, as C++ designated initializers


def test_execute_refusals(sandbox):
    s = sandbox.session("closed")
    with pytest.raises(bashkit.SandboxError) as e:
        s.execute("true")
    assert str(e.value) == "BashkitSandbox: session 'closed' is not open"
    assert isinstance(e.value, RuntimeError)
    with sandbox.session("open") as s:
        with pytest.raises(ValueError) as e:
            s.execute("true", timeout_seconds=0)
        assert str(e.value) == "execute: timeout_seconds must be positive"


def test_docker_engine_missing_is_sandbox_error():
    def no_engine(opts):
        return bashkit.ProcessResult(exit_code=1, err="Cannot connect to the Docker daemon\n")

    sb = LocalDockerSandbox(runner=no_engine)
    with pytest.raises(bashkit.SandboxError, match="LocalDockerSandbox: no docker engine is reachable"):
        sb.open("s1")
