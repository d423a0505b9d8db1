"""The sandbox API with the names, signatures, defaults, attributes and refusals of the Python agents SDK
it is modelled on (python/README.md lists every item). The engine is the C++ extension (bashkit._bashkit);
this layer gives it the SDK's shapes: keyword-only options where `X | None = None` means "the default",
Literal strings for modes and access levels, class-level attributes, bindings with a `kind`, hooks that
record their arguments and may be `async def`, and `async with` / `await` forms of a session.

Wrong Python types are TypeError naming the option; refused values are ValueError with a message that
says what is supported.
"""
from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import json as _json
import os
import shlex
import threading
import types
from typing import Any, Callable, ClassVar, Dict, Mapping, Optional, Sequence, Tuple

from . import _bashkit as _C

__all__ = [
    "AsyncSandboxSession", "BashkitSandbox", "DangerousLocalSandbox", "EgressPolicy", "GitHubBinding", "GitIdentity",
    "HeaderBinding", "LocalDockerSandbox", "MistralApiBinding", "MistralSandbox", "Network", "NoSandbox",
    "Sandbox", "SandboxCallbackContext", "SandboxHook", "WorkspaceHeaderBindings",
]

_ACCESS = ("none", "files", "full")
_NETWORK_MODES = ("none", "all", "allow")
_EGRESS_MODES = ("block_all", "allow_all", "custom")


# ------------------------------------------------------------------------------------------ checks

def _tname(v: Any) -> str:
    return "None" if v is None else type(v).__name__


def _type_error(owner: str, name: str, expected: str, value: Any) -> TypeError:
    return TypeError("%s: %s must be %s, not %s" % (owner, name, expected, _tname(value)))


def _str(owner: str, name: str, v: Any, optional: bool = False) -> Optional[str]:
    if isinstance(v, str) or (optional and v is None):
        return v
    raise _type_error(owner, name, "a str or None" if optional else "a str", v)


def _bool(owner: str, name: str, v: Any, optional: bool = False) -> Optional[bool]:
    if isinstance(v, bool) or (optional and v is None):
        return v
    raise _type_error(owner, name, "a bool or None" if optional else "a bool", v)


def _int(owner: str, name: str, v: Any, optional: bool = False) -> Optional[int]:
    if optional and v is None:
        return None
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if isinstance(v, float) and not isinstance(v, bool):
        if v.is_integer():
            return int(v)
        raise ValueError("%s: %s must be a whole number, got %r" % (owner, name, v))
    raise _type_error(owner, name, "an int or None" if optional else "an int", v)


def _number(owner: str, name: str, v: Any, optional: bool = False) -> Optional[float]:
    if optional and v is None:
        return None
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    raise _type_error(owner, name, "a number or None" if optional else "a number", v)


def _strings(owner: str, name: str, v: Any) -> Tuple[str, ...]:
    if isinstance(v, (str, bytes)):
        raise TypeError("%s: %s must be a sequence of str, not a single %s (wrap it in a list)" % (owner, name, _tname(v)))
    try:
        items = tuple(v)
    except TypeError:
        raise _type_error(owner, name, "a sequence of str", v) from None
    for x in items:
        if not isinstance(x, str):
            raise TypeError("%s: %s must be a sequence of str, got an item of type %s" % (owner, name, _tname(x)))
    return items


def _sequence(owner: str, name: str, v: Any) -> tuple:
    if isinstance(v, (str, bytes, Mapping)) or v is None:
        raise _type_error(owner, name, "a sequence", v)
    try:
        return tuple(v)
    except TypeError:
        raise _type_error(owner, name, "a sequence", v) from None


def _access(owner: str, v: Any) -> Optional[str]:
    if v is None:
        return None
    if isinstance(v, _C.SandboxAccess):
        return str(v)
    if isinstance(v, str):
        if v in _ACCESS:
            return v
        raise ValueError("access: expected 'none', 'files' or 'full', got '%s'" % v)
    raise TypeError("%s: access must be 'none', 'files', 'full' or None, not %s" % (owner, _tname(v)))


def _literal(owner: str, name: str, v: Any, allowed: Sequence[str], optional: bool = False) -> Optional[str]:
    if optional and v is None:
        return None
    choices = ", ".join(repr(a) for a in allowed)
    if not isinstance(v, str):
        raise TypeError("%s: %s must be one of %s%s, not %s" % (owner, name, choices, " or None" if optional else "",
                                                                 _tname(v)))
    if v not in allowed:
        raise ValueError("%s: %s must be one of %s, got %r" % (owner, name, choices, v))
    return v


# ------------------------------------------------------------------------------------------ Network

class Network:
    """Outbound network access of a sandbox. Build it with none(), all() or allow(hosts=...)."""

    __slots__ = ("_mode", "_hosts", "_impl")

    def __init__(self, *, mode: str = "none", hosts: Sequence[str] = ()) -> None:
        _literal("Network", "mode", mode, _NETWORK_MODES)
        hosts = _strings("Network", "hosts", hosts)
        if mode == "allow":
            if not hosts:
                raise ValueError("Network.allow: hosts needs at least one host or host:port entry")
            impl = _C.Network.allow(list(hosts))
            hosts = tuple(impl.hosts)
        else:
            if hosts:
                raise ValueError("Network: hosts is only for mode='allow' (got mode=%r)" % mode)
            impl = _C.Network.none() if mode == "none" else _C.Network.all()
        object.__setattr__(self, "_mode", mode)
        object.__setattr__(self, "_hosts", hosts)
        object.__setattr__(self, "_impl", impl)

    @classmethod
    def none(cls) -> "Network":
        """No outbound connection."""
        return cls(mode="none")

    @classmethod
    def all(cls) -> "Network":
        """Every outbound connection."""
        return cls(mode="all")

    @classmethod
    def allow(cls, *, hosts: Sequence[str]) -> "Network":
        """HTTPS to the listed host or host:port entries only (no wildcards; at least one)."""
        return cls(mode="allow", hosts=hosts)

    @property
    def mode(self) -> str:
        return self._mode

    @property
    def hosts(self) -> Tuple[str, ...]:
        return self._hosts

    @property
    def kind(self) -> str:
        """The same as mode (the C++ name)."""
        return self._mode

    def reaches(self, host: str) -> bool:
        """Whether this network allows connections to host, a host[:port] entry."""
        _str("Network.reaches", "host", host)
        return self._impl.reaches(host)

    def describe(self) -> str:
        return self._impl.describe()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Network is immutable")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Network):
            return (self._mode, self._hosts) == (other._mode, other._hosts)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("Network", self._mode, self._hosts))

    def __repr__(self) -> str:
        if self._mode == "allow":
            return "Network.allow(hosts=%r)" % (list(self._hosts),)
        return "Network.%s()" % self._mode

    def __reduce__(self):
        return (_network, (self._mode, self._hosts))


def _network(mode: str, hosts: Tuple[str, ...]) -> Network:
    return Network(mode=mode, hosts=hosts)


def _network_arg(owner: str, v: Any) -> Optional[Network]:
    if v is None or isinstance(v, Network):
        return v
    if isinstance(v, _C.Network):  # the extension's own type
        return Network(mode=v.kind, hosts=tuple(v.hosts))
    raise _type_error(owner, "network", "a Network or None", v)


class EgressPolicy:
    """The IP addresses a MistralSandbox may connect to besides what its network allows."""

    __slots__ = ("_mode", "_cidrs", "_impl")

    def __init__(self, *, mode: str = "block_all", allow_cidrs: Sequence[str] = ()) -> None:
        _literal("EgressPolicy", "mode", mode, _EGRESS_MODES)
        cidrs = _strings("EgressPolicy", "allow_cidrs", allow_cidrs)
        if mode == "custom":
            impl = _C.EgressPolicy.custom(list(cidrs))
        else:
            if cidrs:
                raise ValueError("EgressPolicy: allow_cidrs is only for mode='custom' (got mode=%r)" % mode)
            impl = _C.EgressPolicy.block_all() if mode == "block_all" else _C.EgressPolicy.allow_all()
        object.__setattr__(self, "_mode", mode)
        object.__setattr__(self, "_cidrs", cidrs)
        object.__setattr__(self, "_impl", impl)

    @classmethod
    def block_all(cls) -> "EgressPolicy":
        return cls(mode="block_all")

    @classmethod
    def allow_all(cls) -> "EgressPolicy":
        return cls(mode="allow_all")

    @classmethod
    def custom(cls, *, allow_cidrs: Sequence[str]) -> "EgressPolicy":
        return cls(mode="custom", allow_cidrs=allow_cidrs)

    @classmethod
    def from_network(cls, network: Network) -> "EgressPolicy":
        """The policy a network stands for: none -> block_all, all -> allow_all (an allow list cannot be one)."""
        n = _network_arg("EgressPolicy.from_network", network)
        if n is None:
            raise _type_error("EgressPolicy.from_network", "network", "a Network", network)
        return _egress_from_c(_C.EgressPolicy.from_network(n._impl))

    @property
    def mode(self) -> str:
        return self._mode

    @property
    def allow_cidrs(self) -> Tuple[str, ...]:
        return self._cidrs

    @property
    def kind(self) -> str:
        """The same as mode (the C++ name)."""
        return self._mode

    def describe(self) -> str:
        return self._impl.describe()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("EgressPolicy is immutable")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EgressPolicy):
            return (self._mode, self._cidrs) == (other._mode, other._cidrs)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("EgressPolicy", self._mode, self._cidrs))

    def __repr__(self) -> str:
        if self._mode == "custom":
            return "EgressPolicy.custom(allow_cidrs=%r)" % (list(self._cidrs),)
        return "EgressPolicy.%s()" % self._mode


def _egress_from_c(e: Any) -> EgressPolicy:
    return EgressPolicy(mode=e.kind, allow_cidrs=tuple(e.allow_cidrs))


# ------------------------------------------------------------------------------------------ bindings

class _Binding:
    """Fields set once by the constructor; equality and repr over them."""

    __slots__ = ()
    _fields: ClassVar[Tuple[str, ...]] = ()
    _secret: ClassVar[Tuple[str, ...]] = ()
    kind: ClassVar[str]

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("%s is immutable" % type(self).__name__)

    def _set(self, **values: Any) -> None:
        for k, v in values.items():
            object.__setattr__(self, k, v)

    def __eq__(self, other: object) -> bool:
        if type(other) is type(self):
            return all(getattr(self, f) == getattr(other, f) for f in self._fields)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((type(self).__name__,) + tuple(getattr(self, f) for f in self._fields))

    def __repr__(self) -> str:
        parts = []
        for f in self._fields:
            v = getattr(self, f)
            parts.append("%s=%s" % (f, "'***'" if f in self._secret and v else repr(v)))
        return "%s(%s)" % (type(self).__name__, ", ".join(parts))


class HeaderBinding(_Binding):
    """Adds a secret to the HTTPS requests a sandbox sends to a host (the script never sees it)."""

    __slots__ = ("host", "header", "secret_name", "path_prefix", "prefix", "suffix")
    _fields = __slots__
    kind: ClassVar[str] = "header_binding"

    def __init__(self, *, host: str, header: str, secret_name: str, path_prefix: str = "/", prefix: str = "",
                 suffix: str = "") -> None:
        o = "HeaderBinding"
        for name, v in (("host", host), ("header", header), ("secret_name", secret_name), ("path_prefix", path_prefix),
                        ("prefix", prefix), ("suffix", suffix)):
            _str(o, name, v)
        if not secret_name:
            raise ValueError("HeaderBinding: secret_name must not be empty")
        self._set(host=host, header=header, secret_name=secret_name, path_prefix=path_prefix, prefix=prefix,
                  suffix=suffix)


class GitHubBinding(_Binding):
    """Git and the GitHub API with the session user's identity, for repos ('owner/name' entries) or 'all'."""

    __slots__ = ("repos", "ttl_seconds", "host", "token")
    _fields = __slots__
    _secret = ("token",)
    kind: ClassVar[str] = "github"

    def __init__(self, *, repos: Any, ttl_seconds: int = 3600, host: str = "github.com", token: str = "") -> None:
        o = "GitHubBinding"
        if isinstance(repos, str):
            if repos != "all":
                raise ValueError("GitHubBinding: repos must be 'all' or a sequence of 'owner/name' entries, got %r" % repos)
        else:
            repos = _strings(o, "repos", repos)
        ttl = _int(o, "ttl_seconds", ttl_seconds)
        if ttl is not None and ttl <= 0:
            raise ValueError("GitHubBinding: ttl_seconds must be positive")
        _str(o, "host", host)
        _str(o, "token", token)
        self._set(repos=repos, ttl_seconds=ttl, host=host, token=token)


class MistralApiBinding(_Binding):
    """The Mistral API with the session user's identity."""

    __slots__ = ("ttl_seconds", "api_key")
    _fields = __slots__
    _secret = ("api_key",)
    kind: ClassVar[str] = "mistral_api"
    run_as: ClassVar[str] = "auto"

    def __init__(self, *, ttl_seconds: int = 3600, api_key: str = "") -> None:
        ttl = _int("MistralApiBinding", "ttl_seconds", ttl_seconds)
        if ttl is not None and ttl <= 0:
            raise ValueError("MistralApiBinding: ttl_seconds must be positive")
        _str("MistralApiBinding", "api_key", api_key)
        self._set(ttl_seconds=ttl, api_key=api_key)


class WorkspaceHeaderBindings(_Binding):
    """Route a Mistral sandbox through the service's proxy and apply the rules a workspace administrator
    registered there (a marker: it has no fields)."""

    __slots__ = ()
    kind: ClassVar[str] = "workspace_header_bindings"

    def __init__(self) -> None:
        pass


_BINDING_TYPES = (HeaderBinding, GitHubBinding, MistralApiBinding, WorkspaceHeaderBindings)
_C_BINDINGS = (_C.HeaderBinding, _C.GitHubBinding, _C.MistralApiBinding)

SecretsArg = Any  # Mapping[str, str] | Callable[[str], str | None] | None


def _resolve_secret(secrets: SecretsArg, name: str) -> Optional[str]:
    if secrets is None:
        return os.environ.get(name)
    if isinstance(secrets, Mapping):
        v = secrets.get(name)
    elif callable(secrets):
        v = secrets(name)
    else:
        raise TypeError("secrets must be a mapping, a callable or None, not %s" % _tname(secrets))
    if v is not None and not isinstance(v, str):
        raise TypeError("secrets: the value of %r must be a str, not %s" % (name, _tname(v)))
    return v


def _bindings(owner: str, seq: Any, secrets: SecretsArg, supported: Tuple[type, ...]):
    """(the bindings as given, the extension's bindings, whether WorkspaceHeaderBindings was given)."""
    given = _sequence(owner, "header_bindings", seq)
    out = []
    workspace = False
    names = ", ".join(t.__name__ for t in supported) or "none"
    for i, b in enumerate(given, 1):
        if isinstance(b, _C_BINDINGS):  # the extension's own types (the secret given as a value)
            out.append(b)
            continue
        if not isinstance(b, _BINDING_TYPES):
            raise TypeError("%s: header_bindings: expected HeaderBinding, GitHubBinding, MistralApiBinding or "
                            "WorkspaceHeaderBindings, got %s" % (owner, _tname(b)))
        if not isinstance(b, supported):
            raise ValueError("%s does not support header binding %s; supported: %s" % (owner, type(b).__name__, names))
        if isinstance(b, HeaderBinding):
            # Checked now; the engine looks the secret up again each time a session starts.
            if not _resolve_secret(secrets, b.secret_name):
                raise ValueError("header_bindings: HeaderBinding #%d: no secret named '%s' (pass secrets={'%s': ...} "
                                 "to the sandbox, or set it in the environment)" % (i, b.secret_name, b.secret_name))
            out.append(_C.HeaderBinding(host=b.host, header=b.header, secret_name=b.secret_name,
                                        path_prefix=b.path_prefix, prefix=b.prefix, suffix=b.suffix))
        elif isinstance(b, GitHubBinding):
            if b.repos == "all":
                out.append(_C.GitHubBinding(all_repos=True, ttl_seconds=b.ttl_seconds, host=b.host, token=b.token))
            else:
                out.append(_C.GitHubBinding(repos=list(b.repos), ttl_seconds=b.ttl_seconds, host=b.host, token=b.token))
        elif isinstance(b, MistralApiBinding):
            out.append(_C.MistralApiBinding(ttl_seconds=b.ttl_seconds, api_key=b.api_key))
        else:
            workspace = True
    return given, out, workspace


# ------------------------------------------------------------------------------------------ async helpers

# The event loop of the `async with` / `await` call that is running a session operation on a worker thread:
# async hooks run on it (the caller's loop is free meanwhile: it awaits the worker).
_caller_loop: contextvars.ContextVar = contextvars.ContextVar("bashkit_caller_loop", default=None)


def _run_awaitable(aw: Any) -> Any:
    """Runs an awaitable to completion from synchronous code: on the caller's running loop when a session
    operation was awaited there, else on a new loop in this thread (or in a helper thread when this thread's
    own loop is the one blocked in this call)."""

    async def wrap():
        return await aw

    loop = _caller_loop.get()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is None and loop is not None and loop.is_running():
        return asyncio.run_coroutine_threadsafe(wrap(), loop).result()
    if running is None:
        return asyncio.run(wrap())
    box: Dict[str, Any] = {}

    def target():
        try:
            box["value"] = asyncio.run(wrap())
        except BaseException as e:  # noqa: B902 - handed to the waiting thread
            box["error"] = e

    t = threading.Thread(target=target, name="bashkit-hook")
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


async def _in_thread(session: Any, fn: Callable, *args: Any, **kwargs: Any) -> Any:
    loop = asyncio.get_running_loop()
    token = _caller_loop.set(loop)
    try:
        ctx = contextvars.copy_context()
    finally:
        _caller_loop.reset(token)
    fut = loop.run_in_executor(None, functools.partial(ctx.run, fn, *args, **kwargs))
    try:
        return await fut
    except asyncio.CancelledError:
        if session is not None:
            session.cancel()  # the command stops soon; the worker thread then ends
        raise


class AsyncSandboxSession:
    """A session's operations as coroutines (`async with sandbox.session(...) as s: await s.execute(...)`).
    Each runs on a worker thread with the GIL released while bashkit works; cancelling the awaiting task
    cancels the running command."""

    session: Any  # the SandboxSession

    def __init__(self, session: Any) -> None:
        self.session = session

    @property
    def id(self) -> str:
        return self.session.id

    @property
    def is_open(self) -> bool:
        return self.session.is_open

    async def open(self) -> "AsyncSandboxSession":
        await _in_thread(None, self.session.open)
        return self

    async def close(self) -> None:
        await _in_thread(None, self.session.close)

    async def execute(self, command: str, timeout_seconds: Optional[float] = None, **kwargs: Any):
        return await _in_thread(self.session, self.session.execute, command, timeout_seconds, **kwargs)

    async def read_file(self, path: str) -> str:
        return await _in_thread(self.session, self.session.read_file, path)

    async def read_file_bytes(self, path: str) -> bytes:
        return await _in_thread(self.session, self.session.read_file_bytes, path)

    async def write_file(self, path: str, content: Any) -> None:
        await _in_thread(self.session, self.session.write_file, path, content)

    async def call_tool(self, name: str, arguments: Any = None) -> dict:
        return await _in_thread(self.session, self.session.call_tool, name, arguments)

    def tools(self) -> list:
        return self.session.tools()

    def cancel(self) -> bool:
        return self.session.cancel()

    async def __aenter__(self) -> "AsyncSandboxSession":
        return await self.open()

    async def __aexit__(self, *exc: Any) -> bool:
        await self.close()
        return False

    def __repr__(self) -> str:
        return "<AsyncSandboxSession %r>" % (self.session,)


def _session_call_tool(original: Callable) -> Callable:
    def call_tool(self, name: str, arguments: Any = None) -> dict:
        """Calls a tool. arguments: a dict, or the JSON text a model's tool call carries; None for none."""
        from_text = isinstance(arguments, (str, bytes, bytearray))
        if isinstance(arguments, (bytes, bytearray)):
            arguments = arguments.decode("utf-8", "replace")
        if isinstance(arguments, str):
            text = arguments.strip()
            if not text:
                arguments = None
            else:
                try:
                    arguments = _json.loads(text)
                except ValueError as e:
                    return {"ok": False, "error": "%s: arguments are not valid JSON: %s" % (name, e)}
        if not from_text:
            return original(self, name, arguments)  # a dict of non-JSON values is the caller's TypeError
        try:
            return original(self, name, arguments)
        except (ValueError, TypeError) as e:  # what a model sent is not representable (an int beyond 64 bits)
            return {"ok": False, "error": "%s: arguments: %s" % (name, e)}

    call_tool.__doc__ = original.__doc__ or call_tool.__doc__
    return call_tool


async def _session_aenter(self):
    await _in_thread(None, self.open)
    return AsyncSandboxSession(self)


async def _session_aexit(self, *exc: Any) -> bool:
    await _in_thread(None, self.close)
    return False


_C.SandboxSession.call_tool = _session_call_tool(_C.SandboxSession.call_tool)
_C.SandboxSession.__aenter__ = _session_aenter
_C.SandboxSession.__aexit__ = _session_aexit


def _access_eq(self, other):
    if isinstance(other, str):
        return str(self) == other
    if isinstance(other, _C.SandboxAccess):
        return int(self) == int(other)
    return NotImplemented


# The access levels compare equal to their names ("full"), so session.access == "full" holds.
_C.SandboxAccess.__eq__ = _access_eq
_C.SandboxAccess.__ne__ = lambda self, other: (lambda r: r if r is NotImplemented else not r)(_access_eq(self, other))
_C.SandboxAccess.__hash__ = lambda self: hash(str(self))


# ------------------------------------------------------------------------------------------ hooks

class SandboxCallbackContext:
    """What on_create / on_destroy receive: `sandbox` is the session (execute, read_file, write_file); for an
    `async def` hook its methods are coroutines (`await ctx.sandbox.execute(...)`)."""

    session: Any
    sandbox: Any

    def __init__(self, session: Any, *, is_async: bool = False) -> None:
        self.session = session
        self.sandbox = _HookSandbox(session) if is_async else session

    def __getattr__(self, name: str) -> Any:  # ctx.execute(...) as before
        return getattr(self.session, name)


class _HookSandbox(AsyncSandboxSession):
    """The session for an async hook: the session is opening or closing, so its operations run at once on
    the hook's thread (the sandbox is waiting for the hook anyway)."""

    async def execute(self, command: str, timeout_seconds: Optional[float] = None, **kwargs: Any):
        return self.session.execute(command, timeout_seconds, **kwargs)

    async def read_file(self, path: str) -> str:
        return self.session.read_file(path)

    async def read_file_bytes(self, path: str) -> bytes:
        return self.session.read_file_bytes(path)

    async def write_file(self, path: str, content: Any) -> None:
        self.session.write_file(path, content)

    async def call_tool(self, name: str, arguments: Any = None) -> dict:
        return self.session.call_tool(name, arguments)


def _wrap_hook_method(f: Callable) -> Callable:
    is_async = inspect.iscoroutinefunction(f)

    @functools.wraps(f)
    def method(self, ctx):
        if isinstance(ctx, _C.SandboxSession):  # called by the sandbox
            r = f(self, SandboxCallbackContext(ctx, is_async=is_async))
            if inspect.isawaitable(r):
                _run_awaitable(r)
            return None
        return f(self, ctx)  # called from Python code (super().on_create(ctx)): as written

    method._bashkit_wrapped = True  # type: ignore[attr-defined]
    return method


def _json_value(v: Any) -> bool:
    try:
        _json.dumps(v, allow_nan=False)
        return True
    except (TypeError, ValueError):
        return False


def _wrap_init(init: Callable) -> Callable:
    sig = inspect.signature(init)

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        outermost = "_bashkit_args" not in self.__dict__
        if outermost:
            recorded: Dict[str, Any] = {}
            try:
                bound = sig.bind(self, *args, **kwargs)
            except TypeError:
                bound = None  # init raises the same TypeError below
            if bound is not None:
                for i, (name, value) in enumerate(bound.arguments.items()):
                    if i == 0:
                        continue  # self
                    kind = sig.parameters[name].kind
                    if kind is inspect.Parameter.VAR_KEYWORD:
                        recorded.update(value)
                    elif kind is inspect.Parameter.VAR_POSITIONAL:
                        if value:
                            recorded[name] = list(value)
                    else:
                        recorded[name] = value
            self.__dict__["_bashkit_args"] = recorded
        init(self, *args, **kwargs)
        if outermost and not self.__dict__.get("_bashkit_cpp"):
            SandboxHook.__init__(self)  # the subclass did not call super().__init__()

    __init__._bashkit_wrapped = True  # type: ignore[attr-defined]
    return __init__


class SandboxHook(_C.SandboxHook):
    """Code a sandbox runs once when it is ready (on_create) and once when the session closes (on_destroy).

    Subclass it and override either method, as `def` or `async def`. The arguments a subclass is built with
    are recorded: to_unified_state() returns them and from_unified_state(state) calls the constructor with
    them again (they must be JSON values), unless the subclass defines both methods itself."""

    def __init__(self) -> None:
        if self.__dict__.get("_bashkit_cpp"):
            return
        self.__dict__["_bashkit_cpp"] = True
        self.__dict__.setdefault("_bashkit_args", {})
        _C.SandboxHook.__init__(self)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("on_create", "on_destroy"):
            f = cls.__dict__.get(name)
            if f is not None and callable(f) and not getattr(f, "_bashkit_wrapped", False):
                setattr(cls, name, _wrap_hook_method(f))
        init = cls.__dict__.get("__init__")
        if init is not None and not getattr(init, "_bashkit_wrapped", False):
            setattr(cls, "__init__", _wrap_init(init))

    async def on_create(self, ctx: SandboxCallbackContext) -> None:
        """Runs once when the sandbox is ready, before the agent starts. Does nothing by default."""
        return None

    async def on_destroy(self, ctx: SandboxCallbackContext) -> None:
        """Runs once when the session closes. Does nothing by default."""
        return None

    def to_unified_state(self) -> Dict[str, Any]:
        """The arguments the hook was built with, from which from_unified_state() rebuilds it."""
        args = dict(self.__dict__.get("_bashkit_args", {}))
        for k, v in args.items():
            if not _json_value(v):
                raise TypeError("%s.to_unified_state: argument %r is not a JSON value (%s); define to_unified_state "
                                "and from_unified_state to store it otherwise" % (type(self).__name__, k, _tname(v)))
        return _json.loads(_json.dumps(args))

    @classmethod
    def from_unified_state(cls, state: Dict[str, Any]):
        """Rebuilds the hook by calling its constructor with the recorded arguments."""
        if not isinstance(state, dict):
            raise TypeError("%s.from_unified_state: state must be a dict, not %s" % (cls.__name__, _tname(state)))
        if cls is SandboxHook:
            if "type" in state:  # a hook type registered with register_type (the C++ registry)
                return _C.SandboxHook.from_unified_state(state)
            raise TypeError("SandboxHook.from_unified_state: call it on the hook's own class, e.g. "
                            "GitIdentity.from_unified_state(state)")
        return cls(**state)


# The base's own (async, empty) methods are wrapped too, so the sandbox can call them.
SandboxHook.on_create = _wrap_hook_method(SandboxHook.__dict__["on_create"])  # type: ignore[method-assign]
SandboxHook.on_destroy = _wrap_hook_method(SandboxHook.__dict__["on_destroy"])  # type: ignore[method-assign]


class GitIdentity(SandboxHook):
    """Sets git's global user.name and user.email in the sandbox when it is created. DangerousLocalSandbox
    refuses it (on your machine it would overwrite your ~/.gitconfig)."""

    name: str
    email: str

    def __init__(self, *, name: str, email: str) -> None:
        _str("GitIdentity", "name", name)
        _str("GitIdentity", "email", email)
        if not name:
            raise ValueError("GitIdentity: name must not be empty")
        if not email:
            raise ValueError("GitIdentity: email must not be empty")
        if any(c in s for s in (name, email) for c in "\r\n\0"):
            raise ValueError("GitIdentity: name and email must be one line")
        super().__init__()
        self.__dict__["name"] = name
        self.__dict__["email"] = email

    def on_create(self, ctx: SandboxCallbackContext) -> None:
        r = ctx.sandbox.execute("git config --global user.name %s && git config --global user.email %s"
                                % (shlex.quote(self.name), shlex.quote(self.email)))
        if r.exit_code != 0:
            raise _C.SandboxError("GitIdentity: git config failed (status %d): %s" % (r.exit_code, r.stderr))

    def __repr__(self) -> str:
        return "GitIdentity(name=%r, email=%r)" % (self.name, self.email)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, GitIdentity):
            return (self.name, self.email) == (other.name, other.email)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("GitIdentity", self.name, self.email))


def _git_identity_from_state(state: Dict[str, Any]) -> GitIdentity:
    for k in ("name", "email"):
        if not isinstance(state.get(k), str):
            raise ValueError('hook state: GitIdentity needs a string "%s"' % k)
    return GitIdentity(name=state["name"], email=state["email"])


# SandboxHook.from_unified_state({"type": "GitIdentity", ...}) (the C++ form) gives this class too.
_C.SandboxHook.register_type("GitIdentity", _git_identity_from_state)


def _hooks(owner: str, v: Any) -> tuple:
    hooks = _sequence(owner, "hooks", v)
    for h in hooks:
        if not isinstance(h, _C.SandboxHook):
            raise TypeError("hooks: expected SandboxHook instances, got %s" % _tname(h))
    return hooks


# ------------------------------------------------------------------------------------------ sandboxes

class Sandbox:
    """The options common to every sandbox: network, secrets (header bindings), hooks and the tools the
    model may use (access). Each type declares, as class attributes, what it can enforce
    (supported_network, supported_header_bindings, supported_access) and refuses the rest."""

    supported_network: ClassVar[Tuple[str, ...]] = ("none",)
    supported_header_bindings: ClassVar[Tuple[type, ...]] = ()
    supported_access: ClassVar[str] = "none"
    delete_on_cleanup: ClassVar[bool] = True
    supports_background_processes: ClassVar[bool] = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if type(self) is Sandbox:
            raise TypeError("Sandbox cannot be built itself: use one of its types (BashkitSandbox, NoSandbox, "
                            "DangerousLocalSandbox, LocalDockerSandbox, MistralSandbox)")
        super().__init__(*args, **kwargs)

    def _keep(self, network: Optional[Network], header_bindings: tuple, hooks: tuple) -> None:
        self.__dict__["_network"] = network if network is not None else Network.none()
        self.__dict__["_header_bindings"] = header_bindings
        self.__dict__["_hooks"] = hooks
        # What the engine decided for this instance (delete_on_cleanup depends on the workspace, ...).
        self.__dict__["delete_on_cleanup"] = _C.Sandbox.delete_on_cleanup.fget(self)

    @property
    def network(self) -> Network:
        return self.__dict__["_network"]

    @property
    def header_bindings(self) -> tuple:
        return self.__dict__["_header_bindings"]

    @property
    def hooks(self) -> tuple:
        return self.__dict__["_hooks"]

    @property
    def access(self) -> str:
        """The access level in effect: the one passed, or the widest the type supports."""
        return str(_C.Sandbox.access.fget(self))

    @property
    def attributes(self) -> Any:
        """What the engine declares for this type (SandboxAttributes)."""
        return _C.Sandbox.attributes.fget(self)

    @property
    def type_name(self) -> str:
        return _C.Sandbox.type_name.fget(self)

    def session(self, session_id: str = "") -> Any:
        """A session, not started yet ("" : a random id); `with` / `async with` opens and closes it."""
        return _C.Sandbox.session(self, session_id)

    def open(self, session_id: str = "") -> Any:
        """session(session_id), opened (its hooks' on_create have run)."""
        return _C.Sandbox.open(self, session_id)

    def tools(self) -> list:
        """The tools of this sandbox's access level (ToolSpec)."""
        return _C.Sandbox.tools(self)

    def __repr__(self) -> str:
        return "<%s network=%r access=%r>" % (type(self).__name__, self.network, self.access)


class BashkitSandbox(Sandbox, _C.BashkitSandbox):
    """Runs the model's shell commands in this process through bashkit's bash interpreter: no container, no
    host shell. No network by default; private and loopback addresses stay blocked unless
    block_private_ips=False. A command without timeout_seconds gets 300 seconds. Session folders live under
    the system temp folder, named from instance_id and the session id."""

    supported_network: ClassVar[Tuple[str, ...]] = ("none", "all", "allow")
    supported_header_bindings: ClassVar[Tuple[type, ...]] = (HeaderBinding, GitHubBinding, MistralApiBinding)
    supported_access: ClassVar[str] = "full"
    delete_on_cleanup: ClassVar[bool] = False
    supports_background_processes: ClassVar[bool] = True

    def __init__(self, *, instance_id: Optional[str] = None, network: Optional[Network] = None,
                 block_private_ips: bool = True, hooks: Sequence[SandboxHook] = (), access: Optional[str] = None,
                 header_bindings: Sequence[Any] = (), secrets: SecretsArg = None,
                 default_exec_timeout_seconds: Optional[float] = None, base_dir: Optional[str] = None,
                 ephemeral: bool = False, limits: Any = None, fs_limits: Any = None) -> None:
        o = "BashkitSandbox"
        _str(o, "instance_id", instance_id, optional=True)
        net = _network_arg(o, network)
        _bool(o, "block_private_ips", block_private_ips)
        hooks_t = _hooks(o, hooks)
        acc = _access(o, access)
        given, c_bindings, _ = _bindings(o, header_bindings, secrets, type(self).supported_header_bindings)
        timeout = _number(o, "default_exec_timeout_seconds", default_exec_timeout_seconds, optional=True)
        _str(o, "base_dir", base_dir, optional=True)
        _bool(o, "ephemeral", ephemeral)
        if secrets is not None and not isinstance(secrets, Mapping) and not callable(secrets):
            raise _type_error(o, "secrets", "a mapping, a callable or None", secrets)
        kw: Dict[str, Any] = dict(instance_id=instance_id or "", network=(net or Network.none())._impl,
                                  block_private_ips=block_private_ips, header_bindings=c_bindings, hooks=list(hooks_t),
                                  access=acc, base_dir=base_dir or "", ephemeral=ephemeral,
                                  secrets=functools.partial(_resolve_secret, secrets))
        if timeout is not None:
            kw["default_exec_timeout_seconds"] = timeout
        if limits is not None:
            kw["limits"] = limits
        if fs_limits is not None:
            kw["fs_limits"] = fs_limits
        _C.BashkitSandbox.__init__(self, **kw)
        self._keep(net, given, hooks_t)
        self.__dict__["_instance_id"] = instance_id

    @property
    def instance_id(self) -> Optional[str]:
        return self.__dict__["_instance_id"]


class NoSandbox(Sandbox, _C.NoSandbox):
    """Run without a sandbox: no commands, no files, no network (hooks still run)."""

    supported_network: ClassVar[Tuple[str, ...]] = ("none",)
    supported_header_bindings: ClassVar[Tuple[type, ...]] = ()
    supported_access: ClassVar[str] = "none"
    delete_on_cleanup: ClassVar[bool] = True
    supports_background_processes: ClassVar[bool] = False

    def __init__(self, *, hooks: Sequence[SandboxHook] = ()) -> None:
        hooks_t = _hooks("NoSandbox", hooks)
        _C.NoSandbox.__init__(self, hooks=list(hooks_t))
        self._keep(None, (), hooks_t)


class DangerousLocalSandbox(Sandbox, _C.DangerousLocalSandbox):
    """Runs the commands directly on this machine, as this process's user, with its network: NO isolation.
    For local development and CI only."""

    supported_network: ClassVar[Tuple[str, ...]] = ("all",)
    supported_header_bindings: ClassVar[Tuple[type, ...]] = ()
    supported_access: ClassVar[str] = "full"
    delete_on_cleanup: ClassVar[bool] = True
    supports_background_processes: ClassVar[bool] = True

    def __init__(self, *, shell: Optional[str] = None, default_exec_timeout_seconds: Optional[int] = None,
                 workspace: Optional[str] = None, delete_on_cleanup: Optional[bool] = None,
                 hooks: Sequence[SandboxHook] = (), access: Optional[str] = None) -> None:
        o = "DangerousLocalSandbox"
        if shell is not None and not isinstance(shell, str):
            raise _type_error(o, "shell", "'bash', 'sh' or None", shell)
        timeout = _int(o, "default_exec_timeout_seconds", default_exec_timeout_seconds, optional=True)
        _str(o, "workspace", workspace, optional=True)
        _bool(o, "delete_on_cleanup", delete_on_cleanup, optional=True)
        hooks_t = _hooks(o, hooks)
        acc = _access(o, access)
        kw: Dict[str, Any] = dict(shell=shell if shell is not None else "bash",
                                  workspace=os.path.abspath(workspace) if workspace else "",
                                  delete_on_cleanup=delete_on_cleanup, hooks=list(hooks_t), access=acc)
        if timeout is not None:
            kw["default_exec_timeout_seconds"] = float(timeout)
        _C.DangerousLocalSandbox.__init__(self, **kw)
        self._keep(Network.all(), (), hooks_t)

    @property
    def workspace(self) -> Optional[str]:
        """The folder passed (made absolute), or None for a new folder per session."""
        w = _C.DangerousLocalSandbox.workspace.fget(self)
        return w or None


class LocalDockerSandbox(Sandbox, _C.LocalDockerSandbox):
    """A container of the local docker engine, for development. No network by default (only loopback)."""

    supported_network: ClassVar[Tuple[str, ...]] = ("none", "all")
    supported_header_bindings: ClassVar[Tuple[type, ...]] = ()
    supported_access: ClassVar[str] = "full"
    delete_on_cleanup: ClassVar[bool] = True
    supports_background_processes: ClassVar[bool] = True  # without an image; False with one unless asked

    def __init__(self, *, image: Optional[str] = None, supports_background_processes: Optional[bool] = None,
                 shell: Optional[str] = None, default_exec_timeout_seconds: Optional[int] = None,
                 setup_script: Optional[str] = None, setup_script_timeout_seconds: Optional[int] = None,
                 network: Optional[Network] = None, hooks: Sequence[SandboxHook] = (), access: Optional[str] = None,
                 docker: str = "docker", runner: Optional[Callable] = None) -> None:
        o = "LocalDockerSandbox"
        _str(o, "image", image, optional=True)
        _bool(o, "supports_background_processes", supports_background_processes, optional=True)
        if shell is not None and not isinstance(shell, str):
            raise _type_error(o, "shell", "'bash', 'sh' or None", shell)
        timeout = _int(o, "default_exec_timeout_seconds", default_exec_timeout_seconds, optional=True)
        _str(o, "setup_script", setup_script, optional=True)
        setup_timeout = _int(o, "setup_script_timeout_seconds", setup_script_timeout_seconds, optional=True)
        net = _network_arg(o, network)
        hooks_t = _hooks(o, hooks)
        acc = _access(o, access)
        _str(o, "docker", docker)
        if runner is not None and not callable(runner):
            raise _type_error(o, "runner", "a callable or None", runner)
        background = supports_background_processes if supports_background_processes is not None else image is None
        kw: Dict[str, Any] = dict(supports_background_processes=background,
                                  shell=shell if shell is not None else "bash", setup_script=setup_script or "",
                                  network=(net or Network.none())._impl, hooks=list(hooks_t), access=acc, docker=docker,
                                  runner=runner)
        if image is not None:
            kw["image"] = image
        if timeout is not None:
            kw["default_exec_timeout_seconds"] = float(timeout)
        if setup_timeout is not None:
            kw["setup_script_timeout_seconds"] = float(setup_timeout)
        _C.LocalDockerSandbox.__init__(self, **kw)
        self._keep(net, (), hooks_t)
        self.__dict__["supports_background_processes"] = background


_MISTRAL_OPTIONS: Dict[str, str] = {  # option -> kind of value
    "image": "str", "instance_type": "str", "region": "str", "name_prefix": "str", "ttl_seconds": "int",
    "idle_timeout_seconds": "int", "default_exec_timeout_seconds": "int", "privileged": "bool",
    "docker_daemon_enabled": "bool", "docker_daemon_network_mode": "str", "enable_light_sleep": "bool",
    "setup_script": "str", "setup_script_timeout_seconds": "int", "readiness_max_retries": "int",
    "readiness_interval_seconds": "float", "readiness_probe_timeout_seconds": "int",
    "wait_ready_timeout_seconds": "int", "enable_mesh": "bool", "pre_provisioned_sandbox_id": "str",
    "endpoint": "str", "api_token": "str",
}


class MistralSandbox(Sandbox, _C.MistralSandbox):
    """A sandbox the service runs for each session (Mistral Cloud, or `bashkit serve`). Omitted options
    (except supports_background_processes, network, egress, header_bindings, hooks and access) come from
    AGENTS_SDK_KOYEB_SANDBOX_<OPTION>, else their defaults."""

    supported_network: ClassVar[Tuple[str, ...]] = ("none", "all")
    supported_header_bindings: ClassVar[Tuple[type, ...]] = (GitHubBinding, MistralApiBinding, WorkspaceHeaderBindings)
    supported_access: ClassVar[str] = "full"
    delete_on_cleanup: ClassVar[bool] = True
    supports_background_processes: ClassVar[bool] = True  # without an image; False with one unless asked

    def __init__(self, *, image: Optional[str] = None, supports_background_processes: Optional[bool] = None,
                 instance_type: Optional[str] = None, region: Optional[str] = None, name_prefix: Optional[str] = None,
                 ttl_seconds: Optional[int] = None, idle_timeout_seconds: Optional[int] = None,
                 default_exec_timeout_seconds: Optional[int] = None, privileged: Optional[bool] = None,
                 docker_daemon_enabled: Optional[bool] = None, docker_daemon_network_mode: Optional[str] = None,
                 enable_light_sleep: Optional[bool] = None, setup_script: Optional[str] = None,
                 setup_script_timeout_seconds: Optional[int] = None, readiness_max_retries: Optional[int] = None,
                 readiness_interval_seconds: Optional[float] = None,
                 readiness_probe_timeout_seconds: Optional[int] = None,
                 wait_ready_timeout_seconds: Optional[int] = None, enable_mesh: Optional[bool] = None,
                 network: Optional[Network] = None, egress: Optional[EgressPolicy] = None,
                 header_bindings: Sequence[Any] = (), pre_provisioned_sandbox_id: Optional[str] = None,
                 hooks: Sequence[SandboxHook] = (), access: Optional[str] = None, endpoint: Optional[str] = None,
                 api_token: Optional[str] = None, env: Any = None) -> None:
        o = "MistralSandbox"
        values = dict(image=image, instance_type=instance_type, region=region, name_prefix=name_prefix,
                      ttl_seconds=ttl_seconds, idle_timeout_seconds=idle_timeout_seconds,
                      default_exec_timeout_seconds=default_exec_timeout_seconds, privileged=privileged,
                      docker_daemon_enabled=docker_daemon_enabled,
                      docker_daemon_network_mode=docker_daemon_network_mode, enable_light_sleep=enable_light_sleep,
                      setup_script=setup_script, setup_script_timeout_seconds=setup_script_timeout_seconds,
                      readiness_max_retries=readiness_max_retries,
                      readiness_interval_seconds=readiness_interval_seconds,
                      readiness_probe_timeout_seconds=readiness_probe_timeout_seconds,
                      wait_ready_timeout_seconds=wait_ready_timeout_seconds, enable_mesh=enable_mesh,
                      pre_provisioned_sandbox_id=pre_provisioned_sandbox_id, endpoint=endpoint, api_token=api_token)
        kw: Dict[str, Any] = {}
        authored: Dict[str, Any] = {}
        for name, v in values.items():
            kind = _MISTRAL_OPTIONS[name]
            if kind == "str":
                v = _str(o, name, v, optional=True)
            elif kind == "int":
                v = _int(o, name, v, optional=True)
            elif kind == "float":
                v = _number(o, name, v, optional=True)
            else:
                v = _bool(o, name, v, optional=True)
            if v is not None:
                kw[name] = v
                authored[name] = v
        _bool(o, "supports_background_processes", supports_background_processes, optional=True)
        if supports_background_processes is not None:
            kw["supports_background_processes"] = supports_background_processes
            authored["supports_background_processes"] = supports_background_processes
        net = _network_arg(o, network)
        if egress is not None and not isinstance(egress, EgressPolicy):
            raise _type_error(o, "egress", "an EgressPolicy or None", egress)
        given, c_bindings, workspace = _bindings(o, header_bindings, None, type(self).supported_header_bindings)
        hooks_t = _hooks(o, hooks)
        acc = _access(o, access)
        if net is not None:
            kw["network"] = net._impl
            authored["network"] = net
        if egress is not None:
            kw["egress"] = egress._impl
            authored["egress"] = egress
        if given:
            authored["header_bindings"] = given
        if hooks_t:
            authored["hooks"] = hooks_t
        if acc is not None:
            authored["access"] = acc
        if "api_token" in authored:
            authored["api_token"] = "[redacted]"
        _C.MistralSandbox.__init__(self, env=env, header_bindings=c_bindings, workspace_header_bindings=workspace,
                                   hooks=list(hooks_t), access=acc, **kw)
        self._keep(net, given, hooks_t)
        self.__dict__["_authored"] = types.MappingProxyType(authored)
        self.__dict__["supports_background_processes"] = _C.Sandbox.supports_background_processes.fget(self)

    @property
    def authored_settings(self) -> Mapping[str, Any]:
        """The options you passed, before this process's environment filled in the others."""
        return self.__dict__["_authored"]

    @property
    def egress_policy(self) -> EgressPolicy:
        """The IP-level policy that enforces network and egress on the service."""
        return _egress_from_c(_C.MistralSandbox.egress_policy(self))

    def authored_settings_json(self) -> dict:
        """authored_settings as JSON (what the C++ API reports; api_token redacted)."""
        return _C.MistralSandbox.authored_settings(self)
