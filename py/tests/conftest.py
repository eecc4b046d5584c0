# SPDX-License-Identifier: MIT OR Apache-2.0
"""Shared fixtures for the oracle tests.

The oracle is imported from the source tree (py/python). External vectors are
located through FULLVERIFY_VECTORS or ../shared/vectors relative to the
repository root; tests that need them skip loudly when they are absent.
"""

import os
import pathlib
import sys
import types

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
PKG_DIR = REPO_ROOT / "py" / "python" / "fullverify"
sys.path.insert(0, str(PKG_DIR.parent))


def _bind_oracle_package():
    """Make ``fullverify.oracle`` resolve to this tree's oracle.

    The oracle needs nothing from the Rust extension. If ``fullverify`` cannot be
    imported (extension not built) a bare package object pointing at this tree
    stands in; if an installed ``fullverify`` from another tree wins the import,
    this tree's folder is put first on its ``__path__``.
    """
    try:
        import fullverify
    except ImportError:
        stand_in = types.ModuleType("fullverify")
        stand_in.__path__ = [str(PKG_DIR)]
        sys.modules["fullverify"] = stand_in
        return
    paths = [str(pathlib.Path(p).resolve()) for p in fullverify.__path__]
    if str(PKG_DIR.resolve()) not in paths:
        fullverify.__path__.insert(0, str(PKG_DIR))


_bind_oracle_package()


def vectors_dir():
    env = os.environ.get("FULLVERIFY_VECTORS")
    path = pathlib.Path(env) if env else REPO_ROOT.parent / "shared" / "vectors"
    return path


@pytest.fixture(scope="session")
def vectors():
    path = vectors_dir()
    if not (path / "MANIFEST.md").is_file():
        pytest.skip(
            f"SKIP external vectors: {path} not found; set FULLVERIFY_VECTORS to the "
            "shared vectors folder (see STYLE.md 7d)"
        )
    return path
