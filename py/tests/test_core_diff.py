# SPDX-License-Identifier: MIT OR Apache-2.0
"""scripts/core-diff in the test command: mutated tips of the small corpus through fullverify
and libbitcoinkernel (pbk) from the same chain state; every verdict, reason and tip must agree.

Skipped, with the reason, where the pbk wheel is not installed (it is built for CPython 3.11 on
x86-64 Linux), as test_chaingen_core.py is.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_mutated_blocks_get_cores_verdicts(tmp_path: Path) -> None:
    if importlib.util.find_spec("pbk") is None:
        pytest.skip("SKIP core-diff: no pbk wheel (libbitcoinkernel) for this Python")
    n = 4 * 27  # four blocks of each class
    r = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "core-diff"), "--mutations", str(n), "--seed", "3",
         "--out", str(tmp_path)],
        cwd=REPO, capture_output=True, text=True, timeout=1200,
    )
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    [path] = (tmp_path / "core-diff").glob("*.json")
    p = json.loads(path.read_text())
    m = p["metrics"]
    assert (m["tried"], m["agreed"], m["disagreements"]) == (n, n, 0)
    assert all(c["tried"] >= 3 for c in p["per_class"].values()), p["per_class"]
    # The campaign sees valid blocks and many different rules, not one reject reason.
    reasons = p["core_reasons"]
    assert reasons.get("accepted", 0) >= 3, reasons
    assert len(reasons) >= 10, reasons
