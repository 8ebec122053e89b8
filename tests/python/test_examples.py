"""examples/python/, run as a user would run them."""
import os
import subprocess
import sys

EXAMPLES = os.path.abspath(os.path.join("examples", "python"))


def run_example(name, *args, cwd=None):
    return subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_a_torchvision_model_compiles_and_matches_pytorch():
    done = run_example("compile_torchvision.py", "--model", "squeezenet1_1", "--size", "64",
                       "--repeat", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "same top class: True" in done.stdout
    assert "median latency, 1 thread(s): tessera" in done.stdout


def test_a_model_tunes_through_the_fleet(fleet, conv_model, tmp_path):
    done = run_example("tune_through_fleet.py", conv_model, "--tracker", fleet, "--key",
                       "py-cpu", "--trials", "8", cwd=str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 device(s) of key py-cpu" in done.stdout
    assert "coverage: tuned" in done.stdout
    assert "ran: relu [1, 16, 12, 12], conv [1, 16, 12, 12]" in done.stdout


def test_a_tensor_expression_is_scheduled_timed_and_called():
    done = run_example("tensor_expression.py", "--n", "128")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tile 32 x 16:" in done.stdout and "best tile" in done.stdout
