"""Benchmark: a whole 8-seat, 3-round streamer Chinchirorin game of CPU seats through the engine.

Run on demand (not collected by pytest)::

    .venv/bin/python bench/bench_chinchirorin.py [--games 200] [--level hard]

Each game: ``initial_state``, then until finished every awaited seat's CPU policy chooses from its own
view (``view_for``) and ``legal_actions``, and the engine applies the action. Prints the median, the
10th and 90th percentile wall time of one game in milliseconds (target: median under 20 ms), and the
median CPU time of the process per game (less sensitive to other work on a shared machine).
"""

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.bots import chinchirorin as bots  # noqa: E402
from games.engine import chinchirorin as engine  # noqa: E402


def play_game(seed: int, level: str, rules) -> tuple[int, int]:
    """One game; returns (actions applied, hands played)."""
    rng = random.Random(seed)
    bot_rng = random.Random(seed ^ 0x5EED)
    state, _ = engine.initial_state(rules, 8, rng)
    actions = 0
    while state["phase"] != "finished":
        for seat in engine.awaiting(state):
            if state["phase"] == "finished" or seat not in state["awaiting"]:
                continue
            view = engine.view_for(state, seat)
            legal = engine.legal_actions(state, seat)
            action = bots.choose(view, legal, level, bot_rng, seat=seat, rules=rules)
            state, _ = engine.apply(state, seat, action, rng)
            actions += 1
    return actions, state["hand_number"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--level", default="hard", choices=bots.LEVELS)
    args = parser.parse_args()
    rules = engine.validate_rules({"style": "streamer", "rounds": 3})
    times, cpu, actions, hands = [], [], 0, 0
    for seed in range(args.games):
        t0, c0 = time.perf_counter(), time.process_time()
        a, h = play_game(seed, args.level, rules)
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        actions += a
        hands += h
    q = statistics.quantiles(times, n=10)
    print(
        f"chinchirorin 8 seats, 3 rounds, streamer, CPU {args.level}: {args.games} games, "
        f"{actions / args.games:.0f} actions and {hands / args.games:.1f} hands a game"
    )
    print(f"median {statistics.median(times):.2f} ms  p10 {q[0]:.2f} ms  p90 {q[-1]:.2f} ms  "
          f"(CPU time median {statistics.median(cpu):.2f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
