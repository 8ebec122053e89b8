"""`pip install --no-build-isolation --no-index ./python` into a virtual environment over Debian's
Python, offline, as docs/python.md says; the installed package compiles and runs a model."""
import os
import shutil
import subprocess
import sys


def test_the_package_installs_into_a_venv_and_runs(mlp, tmp_path):
    # A copy of the package folder with the extension module Bazel built beside the sources, and
    # the version header setup.py reads: pip builds in the folder it is given.
    workspace = tmp_path / "workspace"
    shutil.copytree("python", workspace / "python", symlinks=False)
    (workspace / "common").mkdir()
    shutil.copyfile(os.path.join("common", "version.h"), workspace / "common" / "version.h")
    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(env)], check=True)
    install = subprocess.run([str(env / "bin" / "pip"), "install", "--no-build-isolation",
                              "--no-index", str(workspace / "python")], capture_output=True,
                             text=True)
    assert install.returncode == 0, install.stdout + install.stderr
    script = ("import numpy as np, tessera\n"
              "assert tessera.__file__.startswith(%r), tessera.__file__\n"
              "s = tessera.InferenceSession(%r)\n"
              "print(tessera.__version__, s.run(None, {'x': np.ones((2, 16), np.float32)})[0].shape)"
              % (str(env), mlp[0]))
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([str(env / "bin" / "python"), "-c", script], cwd=str(tmp_path),
                          env=clean, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.split()[1:] == ["(2,", "8)"]
