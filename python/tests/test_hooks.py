"""Hooks written in Python: on_create/on_destroy with the session, order, failures, unified state, lifetime."""
import gc

import pytest

import bashkit
from bashkit import BashkitSandbox, GitIdentity, SandboxHook


class Recorder(SandboxHook):
    def __init__(self, log, tag):
        super().__init__()
        self.log = log
        self.tag = tag

    def on_create(self, ctx):
        # The context is the session itself: it can run commands and touch files.
        r = ctx.execute("echo created-%s > /tmp/%s; echo $((6*7))" % (self.tag, self.tag))
        self.log.append("%s:create:%s:%s" % (self.tag, ctx.id, r.stdout.strip()))

    def on_destroy(self, ctx):
        self.log.append("%s:destroy:%s" % (self.tag, ctx.read_file("/tmp/" + self.tag).strip()))

    def to_unified_state(self):
        return {"type": "Recorder", "tag": self.tag}


def test_hooks_run_in_order_with_the_session(tmp_path):
    log = []
    sb = BashkitSandbox(base_dir=str(tmp_path), hooks=[Recorder(log, "a"), Recorder(log, "b")])
    assert [h.tag for h in sb.hooks] == ["a", "b"]
    with sb.session("s1") as s:
        assert log == ["a:create:s1:42", "b:create:s1:42"]
        assert s.execute("cat /tmp/a").stdout == "created-a\n"
    assert log[2:] == ["b:destroy:created-b", "a:destroy:created-a"]


def test_hook_gets_the_same_session_object(tmp_path):
    seen = []

    class Keep(SandboxHook):
        def on_create(self, ctx):
            seen.append(ctx.sandbox)  # the reference's SandboxCallbackContext.sandbox: the session

    sb = BashkitSandbox(base_dir=str(tmp_path), hooks=[Keep()])
    s = sb.open("same")
    assert seen[0] is s
    s.close()
    s2 = sb.session("same2")
    with s2:
        assert seen[1] is s2


def test_failing_hook_fails_open_and_closes(tmp_path):
    log = []

    class Boom(SandboxHook):
        def on_create(self, ctx):
            raise RuntimeError("boom from python")

    sb = BashkitSandbox(base_dir=str(tmp_path), hooks=[Recorder(log, "r"), Boom()])
    s = sb.session("f")
    with pytest.raises(RuntimeError, match="boom from python"):
        s.open()
    assert not s.is_open
    assert log == ["r:create:f:42", "r:destroy:created-r"]


def test_on_destroy_errors_are_swallowed(tmp_path):
    class Bad(SandboxHook):
        def on_destroy(self, ctx):
            raise ValueError("ignored")

    with BashkitSandbox(base_dir=str(tmp_path), hooks=[Bad()]).open("d") as s:
        pass
    assert not s.is_open


def test_defaults_of_python_hooks():
    class Plain(SandboxHook):
        pass

    p = Plain()
    assert p.type_name() == "Plain"
    assert p.to_unified_state() == {}  # the (no) arguments it was built with


def test_hook_kept_alive_by_the_sandbox(tmp_path):
    log = []
    sb = BashkitSandbox(base_dir=str(tmp_path), hooks=[Recorder(log, "only")])  # no other reference
    gc.collect()
    with sb.open("k"):
        pass
    assert log == ["only:create:k:42", "only:destroy:created-only"]
    # And by a session that outlives the sandbox object.
    log.clear()
    s = BashkitSandbox(base_dir=str(tmp_path), hooks=[Recorder(log, "x")]).session("k2")
    gc.collect()
    with s:
        pass
    assert log == ["x:create:k2:42", "x:destroy:created-x"]


def test_git_identity(tmp_path):
    g = GitIdentity(name="Ada Lovelace", email="ada@example.com")
    assert (g.name, g.email, g.type_name()) == ("Ada Lovelace", "ada@example.com", "GitIdentity")
    assert g.to_unified_state() == {"name": "Ada Lovelace", "email": "ada@example.com"}
    h = GitIdentity.from_unified_state(g.to_unified_state())
    assert isinstance(h, GitIdentity) and h.email == "ada@example.com"
    # Through the registry by type name (the C++ form of the state).
    h = SandboxHook.from_unified_state({"type": "GitIdentity", "name": "a", "email": "b"})
    assert isinstance(h, GitIdentity) and (h.name, h.email) == ("a", "b")
    with BashkitSandbox(base_dir=str(tmp_path), hooks=[g]).open("g") as s:
        assert s.execute("git config --global user.name; cat ~/.gitconfig").stdout == \
            "Ada Lovelace\n[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n"


def test_unified_state_errors():
    with pytest.raises(ValueError) as e:
        SandboxHook.from_unified_state({"type": "Nope"})
    assert str(e.value) == "hook state: unknown hook type 'Nope'"
    with pytest.raises(TypeError) as e:
        SandboxHook.from_unified_state([])
    assert str(e.value) == "SandboxHook.from_unified_state: state must be a dict, not list"
    with pytest.raises(TypeError, match="call it on the hook's own class"):
        SandboxHook.from_unified_state({"name": "x"})
    with pytest.raises(ValueError) as e:
        SandboxHook.from_unified_state({"type": "GitIdentity", "name": "x"})
    assert str(e.value) == 'hook state: GitIdentity needs a string "email"'


def test_register_a_python_hook_type(tmp_path):
    log = []
    SandboxHook.register_type("Recorder", lambda state: Recorder(log, state["tag"]))
    assert "Recorder" in SandboxHook.registered_types() and "GitIdentity" in SandboxHook.registered_types()
    h = SandboxHook.from_unified_state({"type": "Recorder", "tag": "t1"})
    assert isinstance(h, Recorder) and h.tag == "t1"
    assert h.to_unified_state() == {"type": "Recorder", "tag": "t1"}
    with BashkitSandbox(base_dir=str(tmp_path), hooks=[h]).open("r"):
        pass
    assert log == ["t1:create:r:42", "t1:destroy:created-t1"]
    SandboxHook.register_type("Broken", lambda state: "not a hook")
    with pytest.raises(TypeError, match="expected SandboxHook instances, got str"):
        SandboxHook.from_unified_state({"type": "Broken"})


class Tagged(SandboxHook):
    def __init__(self, tag):
        super().__init__()
        self.tag = tag

    def type_name(self):
        return "Tagged"

    def to_unified_state(self):
        return {"type": self.type_name(), "tag": self.tag}

    @classmethod
    def from_unified_state(cls, state):
        return cls(state["tag"])


def test_subclass_with_its_own_from_unified_state(tmp_path):
    SandboxHook.register_type("Tagged", Tagged.from_unified_state)
    h = SandboxHook.from_unified_state(Tagged("x").to_unified_state())
    assert type(h) is Tagged and h.tag == "x" and h.type_name() == "Tagged"
    # Hooks in a sandbox come back as the same Python objects.
    sb = BashkitSandbox(base_dir=str(tmp_path), hooks=[h])
    assert sb.hooks[0] is h
    assert [x.to_unified_state() for x in sb.hooks] == [{"type": "Tagged", "tag": "x"}]


def test_forgetting_super_init_is_forgiven(tmp_path):
    class NoInit(SandboxHook):
        def __init__(self, n):
            self.n = n

        def on_create(self, ctx):
            ctx.sandbox.write_file("n", str(self.n))

    with BashkitSandbox(base_dir=str(tmp_path), hooks=[NoInit(3)]).session("s") as s:
        assert s.read_file("n") == "3"
    assert NoInit(3).to_unified_state() == {"n": 3}
