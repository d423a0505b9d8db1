import pytest

import bashkit


@pytest.fixture
def sandbox(tmp_path):
    """A BashkitSandbox whose session folders go to a temporary folder."""
    return bashkit.BashkitSandbox(instance_id="pytest", base_dir=str(tmp_path))


@pytest.fixture
def session(sandbox):
    with sandbox.session("s1") as s:
        yield s
