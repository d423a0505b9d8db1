"""The reference's and the guide's examples type-check against the stubs (Debian's mypy), and code that
breaks the reference's signatures does not."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import bashkit

EXAMPLES = textwrap.dedent('''
    from typing import Literal, Tuple

    import bashkit as agents
    from bashkit import SandboxCallbackContext, SandboxExecutionResult, SandboxHook

    # The guide.
    agents.MistralSandbox()
    agents.MistralSandbox(
        instance_type="large",  # instance size; defaults to "medium"
        idle_timeout_seconds=300,  # sleep after 5 idle minutes; 0 (the default) never sleeps
        ttl_seconds=2 * 60 * 60,  # delete after 2 hours at most; defaults to 24 hours
    )
    agents.MistralSandbox(region="...", network=agents.Network.all())

    # The reference.
    agents.pattern.sandbox_hook.GitIdentity(name="Acme Bot", email="bot@acme.com")
    agents.MistralSandbox(egress=agents.EgressPolicy.custom(allow_cidrs=["203.0.113.0/24"]))
    agents.NoSandbox(hooks=())
    agents.BashkitSandbox(instance_id=None, network=agents.Network.allow(hosts=["api.github.com"]),
                          block_private_ips=False, hooks=[], access="files")
    agents.DangerousLocalSandbox(shell="sh", default_exec_timeout_seconds=60, workspace=None,
                                 delete_on_cleanup=None, access=None)
    agents.LocalDockerSandbox(image=None, supports_background_processes=None, shell="bash",
                              setup_script="pip install requests", setup_script_timeout_seconds=300,
                              network=agents.Network.none())
    agents.EgressPolicy(mode="custom", allow_cidrs=("10.0.0.0/8",))
    agents.Network(mode="allow", hosts=("pypi.org",))
    agents.HeaderBinding(host="api.example.com", header="Authorization", secret_name="EXAMPLE_TOKEN",
                         prefix="Bearer ")
    agents.GitHubBinding(repos="all")
    agents.GitHubBinding(repos=("octo/repo",), ttl_seconds=600)
    agents.MistralApiBinding(ttl_seconds=3600)
    agents.MistralSandbox(header_bindings=[agents.WorkspaceHeaderBindings(), agents.MistralApiBinding()])
    r = SandboxExecutionResult(0, "out", "err")
    code: int = r.exit_code
    modes: Tuple[Literal["none", "all", "allow"], ...] = agents.BashkitSandbox.supported_network
    widest: Literal["none", "files", "full"] = agents.LocalDockerSandbox.supported_access
    kind: Literal["github"] = agents.GitHubBinding.kind
    reaches: bool = agents.Network.all().reaches("example.com:443")
    policy: agents.EgressPolicy = agents.MistralSandbox().egress_policy


    class Greeter(SandboxHook):
        def __init__(self, *, who: str) -> None:
            super().__init__()
            self.who = who

        async def on_create(self, ctx: SandboxCallbackContext) -> None:
            await ctx.sandbox.execute("echo hello " + self.who)


    g: Greeter = Greeter.from_unified_state(Greeter(who="Ada").to_unified_state())
''')

BROKEN = textwrap.dedent('''
    import bashkit as agents

    agents.Network.allow(["pypi.org"])
    agents.GitIdentity("Ada", "ada@example.com")
    agents.BashkitSandbox(access="root")
    agents.HeaderBinding(host="a.com", header="X", value="secret")
''')


def mypy(tmp_path, code):
    if shutil.which("mypy") is None and subprocess.run([sys.executable, "-m", "mypy", "--version"],
                                                       capture_output=True).returncode != 0:
        pytest.skip("mypy is not installed (Debian: apt-get install mypy)")
    path = tmp_path / "example.py"
    path.write_text(code)
    env = dict(os.environ, MYPYPATH=os.path.dirname(os.path.dirname(bashkit.__file__)))
    cmd = [sys.executable, "-m", "mypy"] if subprocess.run([sys.executable, "-m", "mypy", "--version"],
                                                            capture_output=True).returncode == 0 else ["mypy"]
    return subprocess.run(cmd + ["--no-incremental", "--cache-dir", str(tmp_path / "cache"), "--strict",
                                 "--no-error-summary", str(path)], capture_output=True, text=True, env=env)


def test_reference_examples_type_check(tmp_path):
    r = mypy(tmp_path, EXAMPLES)
    assert r.returncode == 0, r.stdout + r.stderr


def test_broken_calls_do_not(tmp_path):
    r = mypy(tmp_path, BROKEN)
    assert r.returncode != 0
    lines = r.stdout.splitlines()
    for line_no in (4, 5, 6, 7):
        assert any(":%d:" % line_no in l for l in lines), r.stdout
