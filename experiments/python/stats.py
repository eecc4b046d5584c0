# SPDX-License-Identifier: MIT OR Apache-2.0
"""Medians, ratios of medians and their seeded percentile-bootstrap confidence intervals.

Used by abrun.py. The bootstrap resamples *pairs*: an A/B campaign runs its arms as
interleaved pairs, so pair i's control and candidate ran under the same conditions, and a
resample keeps them together. The interval is the percentile interval: the lower bound is the
smallest bootstrap statistic whose empirical CDF reaches alpha/2, the upper bound the smallest
one whose empirical CDF reaches 1 - alpha/2 (the inverse of the empirical CDF, no
interpolation), so that it converges to the exact quantiles of the bootstrap distribution as
the number of resamples grows.
"""

from __future__ import annotations

import math
import random
import statistics
from typing import Any, Callable, Sequence

DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 0xAB5EED


def median(xs: Sequence[float]) -> float:
    return float(statistics.median(xs))


def ratio_of_medians(num: Sequence[float], den: Sequence[float]) -> float:
    """median(num) / median(den)."""
    return median(num) / median(den)


def percentile(sorted_values: Sequence[float], p: float) -> float:
    """The inverse empirical CDF at p: the smallest value v with #{x <= v} / n >= p."""
    if not sorted_values:
        raise ValueError("no values")
    if not 0.0 < p <= 1.0:
        raise ValueError(f"p must be in (0, 1], not {p}")
    k = math.ceil(p * len(sorted_values) - 1e-9)
    return float(sorted_values[max(k, 1) - 1])


def bootstrap_pairs(
    pairs: Sequence[tuple[float, float]],
    statistic: Callable[[Sequence[float], Sequence[float]], float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile CI of statistic(first elements, second elements), resampling whole pairs
    with replacement `resamples` times from a `random.Random(seed)`."""
    if not pairs:
        raise ValueError("no pairs")
    if resamples < 1:
        raise ValueError("resamples must be >= 1")
    rng = random.Random(seed)
    n = len(pairs)
    values = []
    for _ in range(resamples):
        sample = [pairs[rng.randrange(n)] for _ in range(n)]
        values.append(statistic([a for a, _ in sample], [b for _, b in sample]))
    values.sort()
    alpha = 1.0 - confidence
    return percentile(values, alpha / 2), percentile(values, 1.0 - alpha / 2)


def ratio_ci(
    control: Sequence[float],
    candidate: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """median(control) / median(candidate) with its paired percentile-bootstrap CI.

    For wall times this ratio is the candidate's speed-up (> 1: the candidate is faster)."""
    if len(control) != len(candidate):
        raise ValueError("control and candidate must have one value per pair")
    lo, hi = bootstrap_pairs(list(zip(control, candidate)), ratio_of_medians,
                             resamples=resamples, seed=seed, confidence=confidence)
    return {
        "ratio": ratio_of_medians(control, candidate),
        "ci": [lo, hi],
        "confidence": confidence,
        "method": "percentile bootstrap, resampling pairs",
        "resamples": resamples,
        "seed": seed,
    }
