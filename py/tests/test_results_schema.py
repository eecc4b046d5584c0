# SPDX-License-Identifier: MIT OR Apache-2.0
"""Every result packet (checked in, and those the test command just produced) fits the schema."""

import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "results" / "schema" / "packet.schema.json").read_text())


def packets() -> list[Path]:
    found = sorted(p for p in (ROOT / "results").rglob("*.json") if "schema" not in p.parts)
    scratch = os.environ.get("FULLVERIFY_SCRATCH_RESULTS")
    if scratch:
        found += sorted(Path(scratch).rglob("*.json"))
    return found


def arms(node: Any) -> list[dict[str, Any]]:
    """Every object that looks like an arm (has ns_per_op), anywhere in the packet."""
    out: list[dict[str, Any]] = []
    if isinstance(node, dict):
        if "ns_per_op" in node:
            out.append(node)
        for v in node.values():
            out += arms(v)
    elif isinstance(node, list):
        for v in node:
            out += arms(v)
    return out


def test_there_are_packets() -> None:
    assert packets(), "no result packets found"


@pytest.mark.parametrize("path", packets(), ids=lambda p: p.name)
def test_packet_fits_schema(path: Path) -> None:
    packet = json.loads(path.read_text())
    jsonschema.validate(packet, SCHEMA)
    assert path.parent.name == packet["experiment"]
    # An experiment with a schema of its own (results/schema/<experiment>.schema.json) must
    # also fit that one.
    own = ROOT / "results" / "schema" / f"{packet['experiment']}.schema.json"
    if own.is_file():
        jsonschema.validate(packet, json.loads(own.read_text()))
    for arm in arms(packet):
        jsonschema.validate(arm, {"$ref": "#/$defs/arm", "$defs": SCHEMA["$defs"]})
        s = arm["stats"]
        assert s["min"] <= s["q1"] <= s["median"] <= s["q3"]
        assert s["n"] == len(arm["ns_per_op"])


def test_schema_rejects_a_broken_packet() -> None:
    good = json.loads(packets()[0].read_text())
    bad = dict(good)
    del bad["git_rev"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCHEMA)
