"""Installs the `tessera` package with Debian's Python, offline:

    bazel build //python:tessera
    python3 -m venv --system-site-packages env
    env/bin/pip install --no-build-isolation --no-index ./python

The extension module is the one Bazel built (bazel-bin/python/tessera/_tessera.so), or, in a copy
of this folder that already holds it (python/tessera/_tessera.so), that one; it is built with
`bazel build //python:tessera` when neither exists.
"""
import os
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
EXTENSION = "_tessera.so"


def version():
    with open(os.path.join(HERE, "..", "common", "version.h")) as f:
        for line in f:
            if "kTesseraVersion" in line and '"' in line:
                return line.split('"')[1]
    raise RuntimeError("no kTesseraVersion in common/version.h")


def built_extension():
    """The extension module to install: beside the sources, else Bazel's (built if missing)."""
    beside = os.path.join(HERE, "tessera", EXTENSION)
    if os.path.exists(beside):
        return beside
    workspace = os.path.dirname(HERE)
    built = os.path.join(workspace, "bazel-bin", "python", "tessera", EXTENSION)
    if not os.path.exists(built):
        subprocess.run(["bazel", "build", "//python:tessera"], cwd=workspace, check=True)
    return built


class BuildWithExtension(build_py):
    """build_py, then the extension module Bazel built into the package."""

    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "tessera", EXTENSION)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built_extension(), target)
        os.chmod(target, 0o755)


class BinaryDistribution(Distribution):
    """A wheel for this platform and Python: the package carries a compiled module."""

    def has_ext_modules(self):
        return True


setup(
    name="tessera",
    version=version() if os.path.exists(os.path.join(HERE, "..", "common", "version.h"))
    else "0.0.0",
    description="Tessera: an auto-tuning tensor compiler with a device fleet (Python binding)",
    packages=["tessera"],
    package_data={"tessera": ["_tessera.pyi", "py.typed"]},
    python_requires=">=3.11",
    install_requires=["numpy"],
    cmdclass={"build_py": BuildWithExtension},
    distclass=BinaryDistribution,
)
