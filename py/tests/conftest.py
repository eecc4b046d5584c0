# SPDX-License-Identifier: MIT OR Apache-2.0
"""Shared fixtures for the oracle tests.

The package is imported from the source tree (py/python); the oracle needs nothing from the
Rust extension, so oracle tests run even where the extension is not built. External vectors are
located through FULLVERIFY_VECTORS or ../shared/vectors relative to the
repository root; tests that need them skip loudly when they are absent, and fail instead when
FULLVERIFY_REQUIRE_VECTORS=1 (CI sets it), so a run without the vectors cannot pass.
"""

import os
import pathlib
import sys

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
PKG_DIR = REPO_ROOT / "py" / "python" / "fullverify"
sys.path.insert(0, str(PKG_DIR.parent))


def vectors_dir():
    env = os.environ.get("FULLVERIFY_VECTORS")
    path = pathlib.Path(env) if env else REPO_ROOT.parent / "shared" / "vectors"
    return path


@pytest.fixture(scope="session")
def vectors():
    path = vectors_dir()
    if not (path / "MANIFEST.md").is_file():
        message = (
            f"external vectors: {path}/MANIFEST.md not found; set FULLVERIFY_VECTORS to the "
            "shared vectors folder"
        )
        if os.environ.get("FULLVERIFY_REQUIRE_VECTORS", "").strip().lower() in ("1", "true", "yes"):
            pytest.fail(f"FULLVERIFY_REQUIRE_VECTORS is set, but {message}", pytrace=False)
        pytest.skip(f"SKIP {message}")
    return path
