"""Shared fixtures of the Python tests: where the repository, the CLI and the models are."""

import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(os.environ.get("MOREAU_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
BUILD = ROOT / "build"
# The package and the test-only MuJoCo oracle live in build/python (ctest sets PYTHONPATH too).
if str(BUILD / "python") not in sys.path:
    sys.path.insert(0, str(BUILD / "python"))

CLI = pathlib.Path(os.environ.get("MOREAU_CLI", BUILD / "moreau"))
SHARED = pathlib.Path(os.environ.get("MOREAU_SHARED_DIR", ROOT.parent / "shared"))
HUMANOID = ROOT / "models" / "humanoid.xml"
MUJOCO_HUMANOID = pathlib.Path("/usr/share/mujoco/model/humanoid/humanoid.xml")


def model_list():
    """The models of tests/models_mujoco222.txt that exist on this machine (absolute paths)."""
    out = []
    for line in (ROOT / "tests" / "models_mujoco222.txt").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("system/"):
            p = pathlib.Path("/usr/share/mujoco/model") / line[len("system/"):]
        elif line.startswith("shared/"):
            p = SHARED / line[len("shared/"):]
        else:
            p = ROOT / line
        if p.exists():
            out.append(p)
    return out


@pytest.fixture
def humanoid():
    import moreau
    return moreau.Model.from_xml_path(str(HUMANOID))
