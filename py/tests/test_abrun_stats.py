# SPDX-License-Identifier: MIT OR Apache-2.0
"""The bootstrap of experiments/python/stats.py (used by abrun.py) against exact answers.

For n distinct values x_(1) < ... < x_(n), n odd, the bootstrap median is x_(k) or below
exactly when at least (n+1)/2 of the n draws are among the k smallest, so its CDF is
F(k) = P(Binomial(n, k/n) >= (n+1)/2). The exact percentile interval is [x_(lo), x_(hi)] with
lo the smallest k where F(k) >= 0.025 and hi the smallest k where F(k) >= 0.975. With enough
resamples the routine must return exactly those order statistics (cases where F lies within
Monte Carlo reach of a threshold are excluded, so the expectation does not depend on the seed).
"""

import importlib.util
import math
import random
import statistics
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load() -> Any:
    spec = importlib.util.spec_from_file_location("fullverify_abstats", ROOT / "experiments" / "python" / "stats.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


stats = _load()
RESAMPLES = 20_000
MARGIN = 0.004  # about 3.5 standard deviations of an empirical CDF at 0.025 with 20,000 resamples


def exact_median_cdf(n: int, k: int) -> float:
    m = (n + 1) // 2
    p = k / n
    return sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(m, n + 1))


def exact_interval(xs: list[float], confidence: float = 0.95) -> tuple[float, float] | None:
    """The exact percentile interval of the bootstrap median, or None when an exact CDF value
    is too close to a threshold for a Monte Carlo answer to be certain."""
    s = sorted(xs)
    n = len(s)
    cdf = [exact_median_cdf(n, k) for k in range(1, n + 1)]
    a = (1 - confidence) / 2
    if any(abs(f - t) < MARGIN for f in cdf for t in (a, 1 - a)):
        return None
    lo = next(k for k, f in enumerate(cdf) if f >= a)
    hi = next(k for k, f in enumerate(cdf) if f >= 1 - a)
    return s[lo], s[hi]


def spread(n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    return sorted({round(rng.uniform(10.0, 30.0), 6) for _ in range(n)})


@pytest.mark.parametrize("n", [9, 11, 21, 25, 31])
def test_ratio_ci_equals_the_exact_median_interval(n: int) -> None:
    xs = spread(n, n)
    assert len(xs) == n
    expected = exact_interval(xs)
    assert expected is not None, f"n={n}: exact CDF too close to a threshold for this test"
    # The candidate is 1.0 in every pair: the ratio of medians is the control's median, and
    # its interval is the bootstrap interval of that median.
    out = stats.ratio_ci(xs, [1.0] * n, resamples=RESAMPLES, seed=7)
    assert out["ratio"] == statistics.median(xs)
    assert tuple(out["ci"]) == expected


@pytest.mark.parametrize("n", [9, 21])
def test_interval_does_not_depend_on_the_seed(n: int) -> None:
    xs = spread(n, 100 + n)
    expected = exact_interval(xs)
    assert expected is not None
    for seed in (1, 2, 3):
        lo, hi = stats.bootstrap_pairs([(x, 0.0) for x in xs], lambda a, b: statistics.median(a),
                                       resamples=RESAMPLES, seed=seed)
        assert (lo, hi) == expected


def test_constant_ratio_gives_a_degenerate_interval() -> None:
    # Pairs whose candidate is always the control / 1.25: every resample of pairs has ratio
    # 1.25, however spread the times are (resampling the arms independently would not).
    control = [10.0, 14.0, 31.0, 12.5, 55.0, 20.0, 11.0]
    candidate = [c / 1.25 for c in control]
    out = stats.ratio_ci(control, candidate, resamples=2000, seed=1)
    assert out["ratio"] == pytest.approx(1.25)
    assert out["ci"][0] == pytest.approx(1.25) and out["ci"][1] == pytest.approx(1.25)


def test_constant_data() -> None:
    out = stats.ratio_ci([3.0] * 5, [2.0] * 5, resamples=500)
    assert out["ratio"] == 1.5 and out["ci"] == [1.5, 1.5]


def test_large_normal_sample_matches_the_asymptotic_interval() -> None:
    # The median of n normal draws has standard error sigma * sqrt(pi / (2n)); the bootstrap
    # percentile interval must be close to median -/+ 1.96 of that.
    rng = random.Random(42)
    n, sigma = 401, 2.0
    xs = [rng.gauss(100.0, sigma) for _ in range(n)]
    lo, hi = stats.bootstrap_pairs([(x, 1.0) for x in xs], stats.ratio_of_medians, resamples=4000, seed=3)
    half = 1.96 * sigma * math.sqrt(math.pi / (2 * n))
    m = statistics.median(xs)
    assert lo < m < hi
    assert (hi - lo) / 2 == pytest.approx(half, rel=0.25)


def test_percentile_is_the_inverse_empirical_cdf() -> None:
    v = [float(i) for i in range(1, 41)]  # 40 values
    assert stats.percentile(v, 0.025) == 1.0  # 1/40 = 0.025 exactly
    assert stats.percentile(v, 0.026) == 2.0
    assert stats.percentile(v, 0.975) == 39.0
    assert stats.percentile(v, 1.0) == 40.0
    with pytest.raises(ValueError):
        stats.percentile([], 0.5)


def test_mismatched_arms_are_refused() -> None:
    with pytest.raises(ValueError):
        stats.ratio_ci([1.0, 2.0, 3.0], [1.0, 2.0])
