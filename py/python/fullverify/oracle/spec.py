# SPDX-License-Identifier: MIT OR Apache-2.0
"""``spec_checked``: run an optimised path next to its specification.

Modelled on the idea of ``optimized_version_of`` in dalek's ristretto.sage: the
optimised function is wrapped so that every call also evaluates the plain
specification and compares

* the results (after an optional projection ``key``, e.g. Jacobian -> affine), or
* the raised exceptions (same exception type on both sides), or
* a result on one side against an exception on the other (always a mismatch).

A divergence raises :class:`SpecMismatch`. Checking is on by default; set the
environment variable ``FULLVERIFY_ORACLE_SPEC_CHECK=0`` to skip the spec call
(the optimised path alone is then used).
"""

import functools
import os

__all__ = ["SpecMismatch", "spec_checked", "spec_checking_enabled"]


class SpecMismatch(AssertionError):
    """The optimised path and its specification disagree."""


def spec_checking_enabled():
    return os.environ.get("FULLVERIFY_ORACLE_SPEC_CHECK", "1") != "0"


def _call(fn, args, kwargs):
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - exceptions are part of the contract
        return ("err", exc)


def spec_checked(spec, key=None):
    """Decorate an optimised function with its specification ``spec``.

    ``key`` projects both results before comparing (default: identity).
    """
    project = key if key is not None else (lambda v: v)

    def deco(fast):
        @functools.wraps(fast)
        def wrapper(*args, **kwargs):
            got = _call(fast, args, kwargs)
            if spec_checking_enabled():
                want = _call(spec, args, kwargs)
                if got[0] != want[0]:
                    raise SpecMismatch(
                        f"{fast.__name__}{args!r}: optimised gave {got!r}, spec gave {want!r}"
                    )
                if got[0] == "err":
                    if type(got[1]) is not type(want[1]):
                        raise SpecMismatch(
                            f"{fast.__name__}{args!r}: optimised raised {got[1]!r}, "
                            f"spec raised {want[1]!r}"
                        )
                elif project(got[1]) != project(want[1]):
                    raise SpecMismatch(
                        f"{fast.__name__}{args!r}: optimised {got[1]!r} != spec {want[1]!r}"
                    )
            if got[0] == "err":
                raise got[1]
            return got[1]

        wrapper.spec = spec
        wrapper.fast = fast
        return wrapper

    return deco
