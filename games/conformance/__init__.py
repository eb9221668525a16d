"""The JSON-lines rules protocol of ../shared/conformance/README.md.

``python -m games.conformance < cases.jsonl > results.jsonl``: one output line per input line, in order,
``{"id", "result"}`` or ``{"id", "error"}``. Each game's ops live in a submodule exposing ``OPS``: a dict
of op name -> ``handler(args: dict) -> dict``; a handler raises ``ValueError`` (or an engine error) with a
message for invalid args.
"""

import json
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO

from games.conformance import chinchirorin, chinchon
from games.engine.errors import EngineError

Handler = Callable[[dict[str, Any]], dict[str, Any]]


def all_ops() -> dict[str, Handler]:
    """Every op of both games, by its protocol name (``"chinchirorin.hand"``...)."""
    return {**chinchirorin.OPS, **chinchon.OPS}


def answer(line: str, ops: dict[str, Handler]) -> dict[str, Any]:
    """Answer one input line: ``{"id", "result"}`` or ``{"id", "error"}``; never raises."""
    case_id = None
    try:
        case = json.loads(line)
        if not isinstance(case, dict):
            raise ValueError("a case must be a JSON object")
        case_id = case.get("id")
        op = case.get("op")
        args = case.get("args", {})
        if not isinstance(args, dict):
            raise ValueError("args must be an object")
        handler = ops.get(op) if isinstance(op, str) else None
        if handler is None:
            raise ValueError(f"unknown op {op!r}")
        return {"id": case_id, "result": handler(args)}
    except (ValueError, TypeError, KeyError, EngineError) as exc:
        return {"id": case_id, "error": _message(exc)}
    except Exception as exc:  # a bad line never stops the run
        return {"id": case_id, "error": f"{type(exc).__name__}: {exc}"}


def _message(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"missing or unknown key {exc.args[0]!r}" if exc.args else "missing key"
    return str(exc) or type(exc).__name__


def run(lines: Iterable[str], out: TextIO) -> int:
    """Answer every non-blank line of ``lines`` onto ``out``; returns how many were answered."""
    ops = all_ops()
    n = 0
    for row in _answers(lines, ops):
        out.write(_encode(row) + "\n")
        n += 1
    out.flush()
    return n


def _encode(row: dict[str, Any]) -> str:
    """One output line; a result that cannot be written as JSON becomes an error line."""
    try:
        return json.dumps(row)
    except (TypeError, ValueError) as exc:
        return json.dumps({"id": row.get("id") if isinstance(row.get("id"), (str, int, float, type(None))) else None,
                           "error": f"result cannot be written as JSON: {exc}"})


def _answers(lines: Iterable[str], ops: dict[str, Handler]) -> Iterator[dict[str, Any]]:
    for line in lines:
        if line.strip():
            yield answer(line, ops)


def main() -> int:
    run(sys.stdin, sys.stdout)
    return 0
