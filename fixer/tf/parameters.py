"""A function's parameter list: one reading for every rule and analysis.

``def f(a, /, b, *args, c, **kw)`` keeps its parameters in five libcst fields; these helpers say
which names the signature binds and where a call's positional argument lands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from fixer.tf.index import FunctionLike


def positional_parameters(func: FunctionLike) -> list[cst.Param]:
    """The parameters a call may fill by position (positional-only ones first), ``self`` included."""
    params = func.params
    return [*params.posonly_params, *params.params]


def named_parameters(func: FunctionLike) -> list[cst.Param]:
    """Every parameter with a name of its own: positional ones, then keyword-only (no ``*args``/``**kw``)."""
    return [*positional_parameters(func), *func.params.kwonly_params]


def every_parameter(func: FunctionLike) -> list[cst.Param]:
    """Every name the signature binds: :func:`named_parameters` plus ``*args`` and ``**kwargs``."""
    params = func.params
    stars = [star for star in (params.star_arg, params.star_kwarg) if isinstance(star, cst.Param)]
    return [*named_parameters(func), *stars]


def has_parameter(func: FunctionLike, name: str) -> bool:
    """``func``'s signature binds ``name`` (``*args`` and ``**kwargs`` included)."""
    return any(param.name.value == name for param in every_parameter(func))


def parameter(func: FunctionLike, name: str) -> cst.Param | None:
    """The named parameter ``name`` of ``func`` (not ``*args``/``**kwargs``), or None."""
    return next((param for param in named_parameters(func) if param.name.value == name), None)


def takes_receiver(func: FunctionLike) -> bool:
    """The first positional parameter is named ``self`` or ``cls``: a bound call does not pass it."""
    positional = positional_parameters(func)
    return bool(positional) and positional[0].name.value in ("self", "cls")


def call_position(func: FunctionLike, name: str, *, skip_first: bool) -> int | None:
    """Where a call's positional arguments give ``name``: its index among them.

    ``skip_first``: the call is bound (``obj.method(x)``), so the first parameter is not among the
    arguments. None when ``name`` is keyword-only, not a parameter, or is that first parameter.
    """
    names = [param.name.value for param in positional_parameters(func)]
    if name not in names:
        return None
    position = names.index(name) - (1 if skip_first else 0)
    return position if position >= 0 else None
