"""The example of python/README.md runs and prints what its comments say."""
import contextlib
import io
import os
import re

README = os.path.join(os.path.dirname(__file__), "..", "README.md")


def test_readme_example_runs():
    with open(README) as f:
        code = re.search(r"```python\n(.*?)```", f.read(), re.S).group(1)
    # Its own session folder, so that runs in parallel (other build trees) do not meet.
    assert 'instance_id="demo"' in code
    code = code.replace('instance_id="demo"', 'instance_id="demo-readme-%d" % os.getpid()')
    out = io.StringIO()
    ns = {"os": os}
    with contextlib.redirect_stdout(out):
        exec(compile(code, "python/README.md", "exec"), ns)
    try:
        lines = out.getvalue().splitlines()
        assert lines == ["0 'hi\\nAda\\n' ''",
                         "{'content': 'hi\\n', 'ok': True, 'total_lines': 1, 'truncated': False}"]
    finally:
        ns["sb"].delete_session("s1")
