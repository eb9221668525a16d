"""A hot query compiled to SQL once per process, then run again with other parameters.

Django compiles a queryset to SQL on every evaluation; for the action path's one locked read (the players
joined to the game and their users, ``FOR UPDATE OF`` both) the compilation costs more CPU than the
database spends answering it (bench/README.md "Server": about half of the lock's 3.5 ms). A
:class:`CompiledQuery` is built from an ordinary queryset whose parameters are placeholders: the SQL, the
columns and the way rows become model instances (``select_related`` included) are kept, and each run only
substitutes the parameters, executes and builds the instances as Django's ``ModelIterable`` does (the
fields' converters applied, related objects cached, annotations set).

The queryset's parameters must each be a :class:`Param` placeholder (an int the program never uses as a
real value), each in the compiled SQL exactly once, or one of the constants the query declares (ints its
own expressions put there, such as an ``Exists``' ``SELECT 1``; kept as they are in every run); anything
else is refused when the query is first compiled, so a change of the queryset can never run with
parameters in the wrong places, nor with a value of the first run baked in.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connections
from django.db.models import QuerySet
from django.db.models.query import get_related_populators


class Param(int):
    """A named placeholder for a :class:`CompiledQuery` parameter: an int far outside every real id
    (``-(2**62) - n``), so that it can stand in an integer lookup and be found again, by its value, in
    the compiled parameters. Keep ``n`` distinct among a query's placeholders."""

    def __new__(cls, name: str, n: int):
        obj = super().__new__(cls, -(2**62) - n)
        obj.name = name
        return obj


def _placeholder_value(p: Any) -> int | None:
    """The int a compiled parameter stands for: itself, or the digits a text column's lookup made of it."""
    if isinstance(p, bool):
        return None
    if isinstance(p, int):
        return int(p)
    if isinstance(p, str) and p.startswith("-") and p[1:].isdigit():
        return int(p)
    return None


class CompiledQuery:
    """``CompiledQuery(build, params, constants=())``: ``build()`` returns the queryset with the
    :class:`Param` placeholders ``params`` in it (an int placeholder may stand for a text value too: the
    lookup's text is its digits); it is compiled on the first run (per database alias) and reused.
    ``constants``: the ints the queryset's own expressions add as parameters (the same in every run),
    allowed in the SQL's parameters besides the placeholders. ``run(alias="default", **params)`` returns the
    model instances, as ``list(queryset)`` with those parameters would.

    Raises ``ValueError`` at the first run when a placeholder is not in the compiled parameters exactly
    once, or a parameter of the SQL is neither a placeholder nor a declared constant."""

    def __init__(self, build: Callable[[], QuerySet], params: list[Param], constants: tuple[int, ...] = ()):
        self._build = build
        self._names = {int(p): p.name for p in params}
        self._constants = frozenset(constants)
        self._lock = threading.Lock()
        self._plans: dict[str, tuple] = {}

    def _plan(self, alias: str) -> tuple:
        plan = self._plans.get(alias)
        if plan is not None:
            return plan
        with self._lock:
            if alias in self._plans:
                return self._plans[alias]
            qs = self._build().using(alias)
            compiler = qs.query.get_compiler(using=alias)
            sql, params = compiler.as_sql()  # also fills select, klass_info, annotation_col_map
            names = []  # per parameter: a placeholder's name, or (the constant,)
            for p in params:
                key = _placeholder_value(p)
                if key in self._names:
                    names.append(self._names[key])
                elif key in self._constants:
                    names.append((p,))
                else:
                    raise ValueError(f"compiled query: parameter {p!r} is not a placeholder")
            if sorted(n for n in names if isinstance(n, str)) != sorted(self._names.values()):
                raise ValueError(f"compiled query: placeholders {sorted(self._names.values())}, SQL has {names}")
            klass_info, select = compiler.klass_info, compiler.select
            start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
            init_list = [f[0].target.attname for f in select[start:end]]
            plan = (sql, tuple(names), compiler, klass_info["model"], start, end, init_list,
                    dict(compiler.annotation_col_map or {}))
            self._plans[alias] = plan
            return plan

    def run(self, alias: str = "default", **params: Any) -> list:
        """The instances for ``params`` (one value per placeholder name)."""
        sql, names, compiler, model, start, end, init_list, annotations = self._plan(alias)
        expected = {n for n in names if isinstance(n, str)}
        if set(params) != expected:
            raise ValueError(f"compiled query: parameters {sorted(params)} given, {sorted(expected)} expected")
        with connections[alias].cursor() as cursor:
            cursor.execute(sql, [params[n] if isinstance(n, str) else n[0] for n in names])
            rows = cursor.fetchall()
        populators = get_related_populators(compiler.klass_info, compiler.select, alias)
        out = []
        for row in compiler.results_iter([rows]):
            obj = model.from_db(alias, init_list, row[start:end])
            for populator in populators:
                populator.populate(row, obj)
            for attr, pos in annotations.items():
                setattr(obj, attr, row[pos])
            out.append(obj)
        return out
