"""Refused options are ValueError with the C++ messages; failures to start are SandboxError."""
import pytest

import bashkit
from bashkit import (BashkitSandbox, DangerousLocalSandbox, GitHubBinding, GitIdentity, HeaderBinding,
                     LocalDockerSandbox, MistralApiBinding, Network, NoSandbox, SandboxAccess)

REFUSALS = [
    # NoSandbox takes only hooks (the reference's signature); its levels are none.
    (lambda: NoSandbox(access=SandboxAccess.files), TypeError, None),
    (lambda: NoSandbox(network=Network.all()), TypeError, None),
    (lambda: DangerousLocalSandbox(hooks=[GitIdentity(name="a", email="a@b")]), ValueError,
     "DangerousLocalSandbox does not support the GitIdentity hook: it would overwrite the user's own ~/.gitconfig"),
    (lambda: DangerousLocalSandbox(shell="zsh"), ValueError, "DangerousLocalSandbox: shell must be 'bash' or 'sh', got 'zsh'"),
    (lambda: DangerousLocalSandbox(default_exec_timeout_seconds=-1), ValueError,
     "DangerousLocalSandbox: default_exec_timeout_seconds must be positive"),
    # DangerousLocalSandbox has no network or header_bindings option (its network is always all).
    (lambda: DangerousLocalSandbox(network=Network.none()), TypeError, None),
    (lambda: DangerousLocalSandbox(header_bindings=[GitHubBinding(repos=["a/b"])]), TypeError, None),
    (lambda: LocalDockerSandbox(network=Network.allow(hosts=["pypi.org"])), ValueError,
     "LocalDockerSandbox does not support network=allow; supported: none, all"),
    (lambda: LocalDockerSandbox(image=""), ValueError, "LocalDockerSandbox: image must not be empty"),
    (lambda: LocalDockerSandbox(header_bindings=[MistralApiBinding()]), TypeError, None),
    (lambda: BashkitSandbox(default_exec_timeout_seconds=0), ValueError,
     "BashkitSandbox: default_exec_timeout_seconds must be positive"),
    (lambda: BashkitSandbox(header_bindings=[GitHubBinding(repos=["justone"], token="t")]), ValueError,
     "header_bindings: GitHubBinding #1: repos: expected 'owner/name', got 'justone'"),
    (lambda: GitIdentity(name="", email="a@b"), ValueError, "GitIdentity: name must not be empty"),
    (lambda: GitIdentity(name="a\nb", email="a@b"), ValueError, "GitIdentity: name and email must be one line"),
    (lambda: BashkitSandbox(access="root"), ValueError, "access: expected 'none', 'files' or 'full', got 'root'"),
]


@pytest.mark.parametrize("make,error,message", REFUSALS, ids=[str(i) for i in range(len(REFUSALS))])
def test_refused_with_message(make, error, message):
    with pytest.raises(error) as e:
        make()
    if message is not None:
        assert str(e.value) == message


def test_wrong_types_are_type_errors():
    with pytest.raises(TypeError, match="hooks: expected SandboxHook instances, got str"):
        BashkitSandbox(hooks=["GitIdentity"])
    with pytest.raises(TypeError, match="BashkitSandbox: access must be 'none', 'files', 'full' or None, not int"):
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
