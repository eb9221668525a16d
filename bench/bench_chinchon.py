"""Benchmark: the Chinchón solver, CPU decisions, whole CPU games and a seeded CPU tournament.

Run on demand (not collected by pytest)::

    .venv/bin/python bench/bench_chinchon.py [--part all|solver|decision|game|tournament]
        [--hands 2000] [--games 20] [--pairs 100] [--tables 120]

- ``solver``: the best arrangement (``chinchon_melds.best_arrangement``) of random 8-card hands holding
  both jokers, each hand distinct (solver cache misses). Target: median under 1 ms.
- ``decision``: every decision with more than one legal action of a hard CPU (memory kept) in 2-seat
  games hard vs normal. Target: median under 20 ms.
- ``game``: a whole standard 4-seat game of CPUs through the engine: four hard CPUs, and a mixed table
  (hard, normal, easy, normal). Target: median under 2 s.
- ``tournament``: 2-seat round robin (hard-normal, hard-easy, normal-easy; ``--pairs`` games a pair, seats
  alternating) and 3-seat tables of one CPU of each level (``--tables`` games, the six seat orders in
  turn), standard rules. Prints win rates.

Each game: ``initial_state`` with ``random.Random(seed)``, then every awaited seat's policy chooses from
its own view (``view_for``) and ``legal_actions`` with ``random.Random(seed ^ 0xB07)``; hard seats keep a
memory between their calls. Standard library only.
"""

import argparse
import itertools
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.bots import chinchon as bots  # noqa: E402
from games.engine import chinchon as engine  # noqa: E402
from games.engine import chinchon_melds as melds  # noqa: E402
from games.engine.cards import build_deck  # noqa: E402


def play_game(levels, seed, settings=None, timings=None):
    """One game; returns the final state. ``timings`` collects hard decision times (seconds)."""
    rules = engine.validate_rules(settings or {}, len(levels))
    rng = random.Random(seed)
    bot_rng = random.Random(seed ^ 0xB07)
    state, _ = engine.initial_state(rules, len(levels), rng)
    memories = [{} for _ in levels]
    while state["phase"] != "finished":
        seat = engine.awaiting(state)[0]
        view = engine.view_for(state, seat)
        legal = engine.legal_actions(state, seat)
        t0 = time.perf_counter()
        action = bots.choose(view, legal, levels[seat], bot_rng, seat=seat, rules=rules, memory=memories[seat])
        if timings is not None and levels[seat] == "hard" and len(legal) > 1:
            timings.append(time.perf_counter() - t0)
        state, _ = engine.apply(state, seat, action, rng)
    return state


def _stats(label, values_ms):
    q = statistics.quantiles(values_ms, n=10)
    print(f"{label}: n={len(values_ms)}  median {statistics.median(values_ms):.2f} ms  "
          f"p10 {q[0]:.2f} ms  p90 {q[-1]:.2f} ms  max {max(values_ms):.2f} ms", flush=True)


def bench_solver(hands: int) -> None:
    rules = engine.validate_rules({})
    deck = [c for c in build_deck(48, 1, 0)]
    rng = random.Random(1)
    seen, times = set(), []
    while len(times) < hands:
        cards = tuple(sorted(rng.sample(deck, 6))) + ("JK", "JK")
        if cards in seen:
            continue
        seen.add(cards)
        t0 = time.perf_counter()
        melds.best_arrangement(list(cards), rules)
        times.append((time.perf_counter() - t0) * 1000)
    _stats("best arrangement, 8 cards with 2 jokers (distinct hands)", times)


def bench_decision(games: int) -> None:
    timings: list[float] = []
    for g in range(games):
        play_game(["hard", "normal"] if g % 2 == 0 else ["normal", "hard"], 500 + g, timings=timings)
    _stats(f"hard decision, 2-seat games hard vs normal ({games} games)", [t * 1000 for t in timings])


def bench_game(games: int) -> None:
    for label, levels in (("4 hard CPUs", ["hard"] * 4), ("hard, normal, easy, normal", ["hard", "normal", "easy", "normal"])):
        times, hands = [], 0
        for g in range(games):
            t0 = time.perf_counter()
            state = play_game(levels, 700 + g)
            times.append((time.perf_counter() - t0) * 1000)
            hands += state["hand_number"]
        _stats(f"whole 4-seat game, {label} ({hands / games:.1f} hands a game)", times)


def bench_tournament(pairs: int, tables: int) -> None:
    t0 = time.perf_counter()
    for a, b in (("hard", "normal"), ("hard", "easy"), ("normal", "easy")):
        wins = 0
        for g in range(pairs):
            levels = [a, b] if g % 2 == 0 else [b, a]
            state = play_game(levels, 10_000 + g)
            wins += levels[state["result"]["standing"][0]["seat"]] == a
        print(f"2 seats {a} vs {b}: {a} wins {wins}/{pairs} = {wins / pairs:.0%}", flush=True)
    orders = list(itertools.permutations(("hard", "normal", "easy")))
    won = dict.fromkeys(("hard", "normal", "easy"), 0)
    for g in range(tables):
        levels = list(orders[g % len(orders)])
        state = play_game(levels, 20_000 + g)
        won[levels[state["result"]["standing"][0]["seat"]]] += 1
    shown = ", ".join(f"{lv} {n}/{tables} = {n / tables:.0%}" for lv, n in won.items())
    print(f"3 seats, one of each level: wins {shown}", flush=True)
    print(f"tournament wall time {time.perf_counter() - t0:.0f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="all", choices=("all", "solver", "decision", "game", "tournament"))
    parser.add_argument("--hands", type=int, default=2000, help="solver: distinct 8-card hands")
    parser.add_argument("--games", type=int, default=20, help="decision and game: games played")
    parser.add_argument("--pairs", type=int, default=100, help="tournament: 2-seat games a pair")
    parser.add_argument("--tables", type=int, default=120, help="tournament: 3-seat games")
    args = parser.parse_args()
    if args.part in ("all", "solver"):
        bench_solver(args.hands)
    if args.part in ("all", "decision"):
        bench_decision(args.games)
    if args.part in ("all", "game"):
        bench_game(args.games)
    if args.part in ("all", "tournament"):
        bench_tournament(args.pairs, args.tables)
    return 0


if __name__ == "__main__":
    sys.exit(main())
