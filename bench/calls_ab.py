"""Python calls per action of two trees of this repository, side by side (on demand, not collected by
pytest): a count that does not move with the machine's load, unlike CPU time.

    .venv/bin/python bench/calls_ab.py A_COMMIT B_COMMIT [--game chinchirorin] [--seats 4] [--actions 300]

Each commit is exported (``git archive``) to a temporary folder and run in a process of its own with
``PYTHONPATH`` at that folder: its own ``bench/bench_server.py --no-load`` plays one whole game in process
(Django's test ``Client``, the real URL, auth, API and write path, against its own PostgreSQL database),
with only the game's actions under :mod:`cProfile` (its ``measure_queries``; the stack it would start is
not started: the query games need none). Printed: calls and profiled time per action of each tree, and
the functions whose calls per action differ most (library functions by file and line, the project's by
file name and function, so that a function moved between modules is matched). The games' dice differ
(a game's seed is random), so compare per action, not totals.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import cProfile, json, os, pstats, re, sys
tree, out, db, game, seats, actions = sys.argv[1:7]
sys.path.insert(0, tree)
os.chdir(tree)
import importlib.util
spec = importlib.util.spec_from_file_location("bench_server_ab", os.path.join(tree, "bench/bench_server.py"))
bs = importlib.util.module_from_spec(spec)
sys.modules["bench_server_ab"] = bs
spec.loader.exec_module(bs)

class NoStack:
    children = []
    def check_alive(self): pass
    def stop(self, *a): pass

bs.start_stack = lambda args, env, logdir: (NoStack(), ["http://127.0.0.1:9"])
prof, counted = cProfile.Profile(), []
measure = bs.measure_queries

def measured(*a, **kw):
    prof.enable()
    try:
        got = measure(*a, **kw)
    finally:
        prof.disable()
    counted.extend(got)
    return got

bs.measure_queries = measured
bs.main(["--no-load", "--game", game, "--query-seats", seats, "--query-actions", actions, "--db", db,
         "--redis", "redis://127.0.0.1:6379/13"])
rows = {}
for (fn, line, name), (_cc, nc, tt, _ct, _callers) in pstats.Stats(prof).stats.items():
    lib = "site-packages" in fn or fn.startswith(sys.base_prefix) or fn == "~"
    name = re.sub(r" at 0x[0-9a-f]+", "", name)  # a built-in's address differs between processes
    key = f"{fn.split('site-packages/')[-1]}:{line}:{name}" if lib else f"{os.path.basename(fn)}:{name}"
    calls, secs = rows.get(key, (0, 0.0))
    rows[key] = (calls + nc, secs + tt)
json.dump({"actions": len(counted), "rows": rows}, open(out, "w"))
"""


def run_tree(commit: str, workdir: Path, game: str, seats: int, actions: int) -> dict:
    tree = workdir / commit
    tree.mkdir()
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    out = workdir / f"{commit}.json"
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'bench' / 'ab_shim'}:{tree}"}  # ab_shim: that tree's modules only
    subprocess.run([sys.executable, "-c", CHILD, str(tree), str(out), f"chinchi_calls_{commit[:12]}", game, str(seats),
                    str(actions)], env=env, check=True, stdout=subprocess.DEVNULL)
    return json.loads(out.read_text())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--game", default="chinchirorin")
    ap.add_argument("--seats", type=int, default=4)
    ap.add_argument("--actions", type=int, default=300)
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="chinchi-calls-") as tmp:
        got = {c: run_tree(c, Path(tmp), args.game, args.seats, args.actions) for c in (args.a, args.b)}
    per = {}
    for c, g in got.items():
        n = max(1, g["actions"])
        per[c] = collections.defaultdict(lambda: (0.0, 0.0), {k: (v[0] / n, v[1] / n) for k, v in g["rows"].items()})
        print(f"{c}: {g['actions']} actions; {sum(v[0] for v in per[c].values()):.0f} calls and "
              f"{sum(v[1] for v in per[c].values()) * 1000:.2f} ms (under cProfile) per action")
    a, b = per[args.a], per[args.b]
    diff = sorted(((b[k][0] - a[k][0], k) for k in set(a) | set(b)), key=lambda r: -abs(r[0]))
    print(f"| calls per action {args.a} | {args.b} | function |\n|---|---|---|")
    for _d, k in diff[:args.top]:
        print(f"| {a[k][0]:.1f} | {b[k][0]:.1f} | `{k}` |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
