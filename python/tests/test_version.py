"""The module reports the project's one version number (the repository's VERSION file)."""
from pathlib import Path

import bashkit


def test_version_is_the_version_file():
    version = (Path(__file__).resolve().parents[2] / "VERSION").read_text().strip()
    assert bashkit.__version__ == version
