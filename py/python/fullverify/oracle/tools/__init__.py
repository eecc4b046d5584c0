# SPDX-License-Identifier: MIT OR Apache-2.0
"""Command-line tools: ``gen_vectors`` (writes core/tests/data/oracle_*.json) and ``crosscheck``."""
