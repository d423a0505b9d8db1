"""The PEP 517 build backend of the bashkit package: no dependencies, so `pip install ./python` works offline
in any venv (no setuptools, no wheel package needed, with or without build isolation).

build_wheel configures the CMake project at the repository root (tests, benchmarks and the CLI off), builds
the target bashkit_python for the interpreter running pip, and zips the package with the extension into a
wheel. BASHKIT_CMAKE_BUILD_DIR=build/release reuses a build tree of the repository as it is configured (much
faster; it must be built for the same Python version); BASHKIT_BUILD_JOBS sets the parallel jobs (default 2).
ccache and ninja are used when installed.
"""
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent  # the CMake project
PACKAGE_FILES = ["__init__.py", "__init__.pyi", "_api.py", "py.typed", "pattern/__init__.py", "pattern/__init__.pyi",
                 "pattern/sandbox_hook.py", "pattern/sandbox_hook.pyi"]


def _project():
    text = (HERE / "pyproject.toml").read_text()
    fields = {}
    for key in ("name", "version", "description", "requires-python"):
        m = re.search(r'^%s\s*=\s*"([^"]*)"' % re.escape(key), text, re.M)
        fields[key] = m.group(1) if m else ""
    fields["version"] = (ROOT / "VERSION").read_text().strip()  # the project's one version number
    return fields


def _tag():
    py = "cp%d%d" % sys.version_info[:2]
    if sys.implementation.name != "cpython":
        raise RuntimeError("bashkit: only CPython is supported (this is %s)" % sys.implementation.name)
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "%s-%s-%s" % (py, py, plat)


def _extension_name():
    return "_bashkit" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")


def _build_extension():
    if not (ROOT / "CMakeLists.txt").exists():
        raise RuntimeError("bashkit: build from the repository (python/ inside bashkit-cpp)")
    reuse = os.environ.get("BASHKIT_CMAKE_BUILD_DIR")
    if reuse:
        build_dir = (ROOT / reuse).resolve()  # as configured: only the module target is built
    else:
        # In the repository's build/ (ignored by git), kept between installs so a reinstall is incremental.
        build_dir = ROOT / "build" / ("python-wheel-" + sys.implementation.cache_tag)
        configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                     "-DBASHKIT_PYTHON=ON", "-DBASHKIT_BUILD_TESTS=OFF", "-DBASHKIT_BUILD_BENCH=OFF",
                     "-DBASHKIT_BUILD_CLI=OFF", "-DPython3_EXECUTABLE=" + sys.executable]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        if shutil.which("ccache"):
            configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        subprocess.check_call(configure, stdout=sys.stderr)
    jobs = os.environ.get("BASHKIT_BUILD_JOBS", "2")
    subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "bashkit_python", "-j", jobs],
                          stdout=sys.stderr)
    built = build_dir / "python" / "bashkit" / _extension_name()
    if not built.exists():
        raise RuntimeError("bashkit: CMake did not produce %s (is %s built for another Python?)" % (built, build_dir))
    return built


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def _metadata(p):
    lines = ["Metadata-Version: 2.1", "Name: " + p["name"], "Version: " + p["version"], "Summary: " + p["description"]]
    if p["requires-python"]:
        lines.append("Requires-Python: " + p["requires-python"])
    readme = HERE / "README.md"
    if readme.exists():
        lines += ["Description-Content-Type: text/markdown", "", readme.read_text()]
    return "\n".join(lines) + "\n"


def _dist_info(p):
    return "%s-%s.dist-info" % (p["name"], p["version"])


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    p = _project()
    d = Path(metadata_directory) / _dist_info(p)
    d.mkdir(parents=True, exist_ok=True)
    (d / "METADATA").write_text(_metadata(p))
    return d.name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    p = _project()
    tag = _tag()
    extension = _build_extension()
    wheel_name = "%s-%s-%s.whl" % (p["name"], p["version"], tag)
    dist_info = _dist_info(p)
    entries = []
    for f in PACKAGE_FILES:
        entries.append(("bashkit/" + f, (HERE / "bashkit" / f).read_bytes()))
    entries.append(("bashkit/" + _extension_name(), extension.read_bytes()))
    entries.append((dist_info + "/METADATA", _metadata(p).encode()))
    wheel_meta = "Wheel-Version: 1.0\nGenerator: bashkit build_backend\nRoot-Is-Purelib: false\nTag: %s\n" % tag
    entries.append((dist_info + "/WHEEL", wheel_meta.encode()))
    record = [_record_line(n, d) for n, d in entries] + [dist_info + "/RECORD,,"]
    entries.append((dist_info + "/RECORD", ("\n".join(record) + "\n").encode()))
    Path(wheel_directory).mkdir(parents=True, exist_ok=True)
    path = Path(wheel_directory) / wheel_name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    raise RuntimeError("bashkit: no source distribution; install from the repository (pip install ./python)")
