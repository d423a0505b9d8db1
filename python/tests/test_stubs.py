"""The type stubs (bashkit/__init__.pyi) declare exactly what the module has."""
import ast
import inspect
import os

import bashkit

STUBS = os.path.join(os.path.dirname(bashkit.__file__), "__init__.pyi")
PYBIND_ENUM = {"name", "value", "__members__"}


def stub_tree():
    with open(STUBS) as f:
        tree = ast.parse(f.read())
    top, classes = set(), {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            members = set()
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    members.add(item.target.id)
            classes[node.name] = members
            top.add(node.name)
        elif isinstance(node, ast.FunctionDef):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            top.add(node.target.id)
        elif isinstance(node, ast.ImportFrom) and node.module is None:  # from . import pattern
            top.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Assign):
            top.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return top, classes


def public(names):
    return {n for n in names if not n.startswith("_")}


def test_every_public_name_is_declared():
    top, _ = stub_tree()
    assert set(bashkit.__all__) <= top
    assert public(top) == set(bashkit.__all__)


def test_the_package_exports_the_whole_extension():
    # Every public name of the extension is exported, as itself or as the Python class that wraps it.
    assert public(dir(bashkit._bashkit)) <= set(bashkit.__all__)


def test_every_member_is_declared_and_exists():
    _, classes = stub_tree()
    for name, members in classes.items():
        cls = getattr(bashkit, name)
        if not inspect.isclass(cls) or issubclass(cls, BaseException):
            continue
        own = set()
        for klass in cls.__mro__:
            if klass.__module__.startswith("bashkit"):
                own |= public(vars(klass)) | public(vars(klass).get("__annotations__", {}))
        inherited_stub = set()
        for base in cls.__mro__[1:]:
            inherited_stub |= classes.get(base.__name__, set())
        missing = own - members - inherited_stub
        assert not missing, "%s: not in the stubs: %s" % (name, sorted(missing))
        extra = public(members) - own - PYBIND_ENUM
        assert not extra, "%s: in the stubs but not in the module: %s" % (name, sorted(extra))
