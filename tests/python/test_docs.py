"""docs/python.md's tutorial, run as written: its Python blocks in order, in one namespace, in an
empty directory."""
import os
import re

DOC = os.path.abspath(os.path.join("docs", "python.md"))  # the runfiles root is the cwd


def tutorial_blocks(text):
    section = text.split("## Tutorial", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_tutorial_runs_as_written(tmp_path, monkeypatch, capsys):
    with open(DOC) as f:
        blocks = tutorial_blocks(f.read())
    assert len(blocks) >= 4
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "tutorial"}
    for block in blocks:
        exec(compile(block, DOC, "exec"), namespace)
    out = capsys.readouterr().out
    assert "coverage: tuned 0/" in out
    assert re.search(r"coverage: tuned (\d+)/\1 tasks", out), out
    assert os.path.exists(tmp_path / "net.tsr") and os.path.exists(tmp_path / "tuning.db")
