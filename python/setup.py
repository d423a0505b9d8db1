"""Builds the bashkit extension with the repository's CMake project (no scikit-build needed, works offline).

    python3 -m pip install --no-build-isolation ./python

The metadata is in pyproject.toml; this file only turns build_ext into: configure the CMake project at the
repository root (tests, benchmarks and the CLI off), build the target bashkit_python for the interpreter
running pip, and copy bashkit/_bashkit.<abi>.so into the wheel. BASHKIT_BUILD_JOBS sets the parallel jobs
(default 2); ccache and ninja are used when installed. BASHKIT_CMAKE_BUILD_DIR=build/release reuses a build
tree of the repository as it is configured (much faster than a fresh one; it must be for the same Python).
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent  # the CMake project


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if not (ROOT / "CMakeLists.txt").exists():
            raise RuntimeError("bashkit: build from the repository (python/ inside bashkit-cpp), not from an sdist")
        target = Path(self.get_ext_fullpath(ext.name)).resolve()
        reuse = os.environ.get("BASHKIT_CMAKE_BUILD_DIR")
        if reuse:
            build_dir = (ROOT / reuse).resolve()  # as configured: only the module target is built
        else:
            # In the repository's build/ (ignored by git), kept between installs so a reinstall is incremental.
            build_dir = ROOT / "build" / ("python-wheel-" + sys.implementation.cache_tag)
            configure = [
                "cmake", "-S", str(ROOT), "-B", str(build_dir),
                "-DCMAKE_BUILD_TYPE=Release", "-DBASHKIT_PYTHON=ON", "-DBASHKIT_BUILD_TESTS=OFF",
                "-DBASHKIT_BUILD_BENCH=OFF", "-DBASHKIT_BUILD_CLI=OFF", "-DPython3_EXECUTABLE=" + sys.executable,
            ]
            if shutil.which("ninja"):
                configure += ["-G", "Ninja"]
            if shutil.which("ccache"):
                configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
            subprocess.check_call(configure)
        jobs = os.environ.get("BASHKIT_BUILD_JOBS", "2")
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "bashkit_python", "-j", jobs])
        built = build_dir / "python" / "bashkit" / target.name
        if not built.exists():
            raise RuntimeError("bashkit: CMake did not produce %s (is it built for another Python?)" % built)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


# Packages here rather than in pyproject.toml's [tool.setuptools], which Debian 12's setuptools calls beta.
setup(
    packages=["bashkit", "bashkit.pattern"],
    package_data={"bashkit": ["__init__.pyi", "py.typed"], "bashkit.pattern": ["__init__.pyi", "sandbox_hook.pyi"]},
    zip_safe=False,
    ext_modules=[CMakeExtension("bashkit._bashkit")],
    cmdclass={"build_ext": CMakeBuild},
)
