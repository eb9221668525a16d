"""The project's layers, as data, and the test that keeps imports going one way.

Each of the project's modules belongs to a unit with a rank (``LAYERS``, lowest first). A module may import
(at module level or anywhere) a module of its own unit, of its own app at a rank not above its own, or of
a LOWER rank:

0. ``config`` - settings, errors, schema helpers, throttling, text policy, health, metrics, channel-layer
   sending (``config.groups``), the ASGI server. Imports no app: apps provide readers to it from their
   ``ready()`` (``config.sources``: the sweeper's heartbeat and games in progress, read by health/metrics).
1. ``accounts`` - users, tokens, standing and sanctions, the socket's authentication (``accounts.ws_auth``).
   A sanction announces ``accounts.signals.user_out`` (rooms and the ranked queue react); ``GET /api/me``
   reads ratings through ``accounts.hooks`` (ranking provides them). ``games.engine`` (with
   ``games.bots``) - the pure rules and the CPU policies. Peers: neither imports the other.
2. ``games`` - the one write path (``games.locking``: the lock and the write; ``games.actions``,
   ``games.timers``, ``games.lifecycle``; ``games.services`` re-exports the entries), events, selectors,
   tasks (sent by name), the games API. Announces ``game_finishing`` / ``game_finished`` (signals); offers
   ``games.hooks``: the coin hooks (veto inside the game's transaction; coins registers) and the
   ``watchable`` question (rooms answers).
3. ``rooms`` - rooms, seats, chat (``rooms.locking``, ``rooms.life``, ``rooms.seats``, ``rooms.chat`` behind
   ``rooms.services``), the socket consumer; reacts to ``game_finishing`` and ``user_out``.
4. ``ranking`` - ratings, XP, achievements, friends, the ranked queue; reacts to ``game_finished``,
   ``room_joined``, ``user_out``; announces ``ranking.signals.game_recorded``.
5. ``coins`` - wallets and the ledger, stakes and pots (``games.hooks``), challenges.
   ``notify`` - the user socket ``/ws/me/``, invitations, Web Push; reacts to ``games.signals.game_turn``.
   Peers: neither imports the other.
6. ``moderation`` - reports, the integrity check (reacts to ``game_recorded``), the admin site.
   ``tournaments`` - friends' tournaments: pairing, rounds, standings; reacts to ``game_finished``. Peers:
   neither imports the other.
7. ``admin`` - every app's ``<app>.admin`` module: the admin pages are a client on top of every app.
8. ``web`` - the page (talks to the server only through the public API and socket).

The composition root - ``COMPOSITION_ROOT``: ``config.urls``, ``config.asgi``, ``config.settings.*`` -
sits above everything and may name every app (it wires the URL and socket routing and the settings).

Upward reactions are Django signals the lower layer sends and the upper one connects to in its
``AppConfig.ready()``, or, where the upper layer must answer or veto inside the lower one's transaction,
a small explicit registry the upper layer fills from ``ready()`` (``games.hooks``, ``accounts.hooks``,
``config.sources``).

No import written inside a function, except (``INNER_ALLOWED``) a heavy or optional module, each with its
reason, and the Django idiom of ``AppConfig.ready()`` importing its own app's modules (models are only
importable once the app registry is ready). No import circle among the project's modules, counting every
import. Migrations are not walked.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Every Django app of the project (a folder with apps.py) and config: a new app is walked, and must have a layer.
APPS = tuple(sorted({p.parent.name for p in ROOT.glob("*/apps.py")} | {"config"}))

LAYERS = {
    "config": 0,
    "accounts": 1,
    "games.engine": 1,  # games.engine.* and games.bots.*
    "games": 2,
    "rooms": 3,
    "ranking": 4,
    "coins": 5,
    "notify": 5,
    "moderation": 6,
    "tournaments": 6,
    "admin": 7,  # every app's ``<app>.admin`` module (and its submodules)
    "web": 8,
}
COMPOSITION_ROOT = ("config.urls", "config.asgi", "config.settings")
ROOT_RANK = 100

# (importing module, imported module) -> why the import is written inside a function.
INNER_ALLOWED = {
    ("config.textpolicy", "icu"): "PyICU is heavy; loaded on the first look-alike check only",
    ("config.web", "uvicorn"): "the server's entry point only; other callers read web_options",
    ("config.celery_app", "config.metrics"): "makes its metric files at import; `config` imports celery_app early",
}


def _modules() -> dict[str, tuple[Path, bool]]:
    mods = {}
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" in path.relative_to(ROOT).parts:
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            is_pkg = parts[-1] == "__init__"
            if is_pkg:
                parts = parts[:-1]
            mods[".".join(parts)] = (path, is_pkg)
    return mods


MODULES = _modules()


def _targets(module: str, is_pkg: bool, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules an import statement names (project modules resolved to the deepest one that exists;
    others as written)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            base = module.split(".")
            if not is_pkg:
                base = base[:-1]
            base = base[:len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        names = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in MODULES else prefix for a in node.names]
    out = []
    for name in names:
        found = name
        while found and found not in MODULES:
            found = found.rpartition(".")[0]
        out.append(found or name)
    return out


def _walk(tree: ast.AST):
    """(import node, enclosing function names) for every import statement in ``tree``."""
    stack: list[tuple[ast.AST, tuple[str, ...]]] = [(tree, ())]
    while stack:
        node, funcs = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, funcs
            inner = funcs + (child.name,) if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else funcs
            stack.append((child, inner))


def _imports():
    """module -> list of (imported module, line, enclosing functions)."""
    out = {}
    for module, (path, is_pkg) in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        out[module] = [(target, node.lineno, funcs) for node, funcs in _walk(tree)
                       for target in _targets(module, is_pkg, node)]
    return out


IMPORTS = _imports()


def unit_of(module: str) -> str:
    """The layer unit ``module`` belongs to (a key of ``LAYERS``), or ``"root"``."""
    if any(module == r or module.startswith(r + ".") for r in COMPOSITION_ROOT):
        return "root"
    parts = module.split(".")
    if len(parts) > 1 and parts[1] == "admin":
        return "admin"
    if parts[:2] in (["games", "engine"], ["games", "bots"]):
        return "games.engine"
    return parts[0]


def rank_of(module: str) -> int:
    unit = unit_of(module)
    return ROOT_RANK if unit == "root" else LAYERS[unit]


def test_every_module_has_a_layer():
    assert {unit_of(m) for m in MODULES} <= set(LAYERS) | {"root"}


def test_imports_only_go_down():
    bad = []
    for module, imports in IMPORTS.items():
        for target, line, _ in imports:
            if target not in MODULES or target == module:
                continue
            same = unit_of(target) == unit_of(module) or (
                target.split(".")[0] == module.split(".")[0] and rank_of(target) <= rank_of(module))
            if not same and rank_of(target) >= rank_of(module):
                bad.append(f"{module}:{line} imports {target} ({unit_of(module)} -> {unit_of(target)})")
    assert bad == []


def test_no_import_circle():
    graph = {m: sorted({t for t, _, _ in imps if t in MODULES and t != m})
             for m, imps in IMPORTS.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []

    def connect(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    assert circles == []


def test_no_import_inside_a_function():
    bad = []
    for module, imports in IMPORTS.items():
        for target, line, funcs in imports:
            if not funcs:
                continue
            if module.endswith(".apps") and funcs[-1] == "ready" and (
                    target.split(".")[0] == module.split(".")[0] or target not in MODULES):
                continue  # the Django idiom: ready() imports its own app's receivers / registrations
            if any(target == t or target.startswith(t + ".") for m, t in INNER_ALLOWED if m == module):
                continue
            bad.append(f"{module}:{line} {'.'.join(funcs)}() imports {target}")
    assert bad == []


def test_inner_allowed_entries_are_used_and_explained():
    used = {(m, t) for m, imps in IMPORTS.items() for target, _, funcs in imps if funcs
            for mm, t in INNER_ALLOWED if mm == m and (target == t or target.startswith(t + "."))}
    assert set(INNER_ALLOWED) == used
    assert all(reason for reason in INNER_ALLOWED.values())
