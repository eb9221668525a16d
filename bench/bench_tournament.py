"""Benchmark: 64 players through a 6-round Swiss tournament, every game played by the CPU (fast speed).

Run on demand (not collected by pytest), with the test settings' services::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/chinchi_x REDIS_URL=redis://127.0.0.1:6379/1 \\
        .venv/bin/python bench/bench_tournament.py [--players 64] [--rounds 6] [--game chinchirorin] [--seats 2]

It makes its own database (``<name>_bench``, dropped at the end), registers the players, creates the
tournament (``cpu_speed`` fast, 30 s turns) and starts it through the services. Every player hands its seat
to the CPU (``games.services.game_set_autoplay``) as each round's tables start; this process then runs
the games' beat (``games.services.game_sweep``) every 0.1 s, which makes the CPU moves as they come due
(0.5 s after each window opens at the fast speed), and Celery runs eagerly, so each game's end goes
through ``games.signals.game_finished`` to the tournament, whose last table starts the next round.

Checked at the end (exit status 1 if any fails): the tournament finished with every round played; every
table's game finished (none aborted, none still playing); each player sat at one table or had one bye
per round; the standings' scores equal the scores recomputed here from the games' own results
(``Game.result.standing``, not the tournament's records); the scores add up to one point per table and
bye; no two players met twice while avoidable (counted). Prints wall time per round and in all, games,
actions, and the queries-free figures of the run.
"""

import argparse
import os
import sys
import time
from collections import Counter, defaultdict
from datetime import timedelta
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "1")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--game", default="chinchirorin", choices=["chinchirorin", "chinchon"])
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=1800.0, help="give up after this many seconds")
    args = parser.parse_args()
    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.settings_dict.setdefault("TEST", {})["NAME"] = f"{old_name}_bench"
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        return run(args)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def run(args) -> int:
    from games import services as games_services
    from games.models import Game, GameAction
    from tests.factories import UserFactory
    from tournaments import pairing, services
    from tournaments.models import Tournament, TournamentTable

    users = [UserFactory() for _ in range(args.players)]
    t = services.tournament_create(user=users[0], game=args.game, format="swiss", rounds=args.rounds,
                                   seats=args.seats, turn_seconds=30, cpu_speed="fast",
                                   starts_at=timezone.now() + timedelta(seconds=1))
    for u in users[1:]:
        services.tournament_join(code=t.code, user=u)
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now())
    began = time.perf_counter()
    assert services.tournament_start(tournament_id=t.pk)
    handed: set[int] = set()
    round_times: dict[int, float] = {}
    round_began = {1: began}
    deadline = began + args.timeout
    while True:
        t.refresh_from_db()
        if t.status != "running":
            round_times[t.round] = time.perf_counter() - round_began[t.round]
            break
        if t.round not in round_began:
            now = time.perf_counter()
            round_times[t.round - 1] = now - round_began[t.round - 1]
            round_began[t.round] = now
        for table in TournamentTable.objects.filter(tournament=t, status="playing").exclude(game_id__in=handed):
            game = Game.objects.get(pk=table.game_id)
            for p in game.players.select_related("user"):
                if p.user is not None:
                    games_services.game_set_autoplay(game_id=game.pk, user=p.user, on=True)
            handed.add(table.game_id)
        games_services.game_sweep()
        if time.perf_counter() > deadline:
            print(f"gave up after {args.timeout:.0f} s in round {t.round}")
            return 1
        time.sleep(0.1)
    total = time.perf_counter() - began

    failures = []
    tables = list(TournamentTable.objects.filter(tournament=t).order_by("round", "index"))
    games = {g.pk: g for g in Game.objects.filter(pk__in=[tb.game_id for tb in tables if tb.game_id])}
    if t.status != "finished" or t.round != args.rounds:
        failures.append(f"tournament {t.status} after round {t.round}")
    if any(g.status != Game.FINISHED for g in games.values()):
        failures.append(f"{sum(g.status != Game.FINISHED for g in games.values())} games not finished")
    per_round = defaultdict(Counter)
    for tb in tables:
        per_round[tb.round].update(tb.players)
    for r in range(1, args.rounds + 1):
        if sorted(per_round[r]) != sorted(u.pk for u in users) or set(per_round[r].values()) != {1}:
            failures.append(f"round {r}: not every player seated once")
    # scores recomputed from the games' own results
    expected: dict[int, Fraction] = defaultdict(Fraction)
    for tb in tables:
        if tb.status == "bye":
            expected[tb.players[0]] += 1
            continue
        standing = {row["seat"]: row["place"] for row in games[tb.game_id].result["standing"]}
        for uid, pts in zip(tb.players, pairing.table_points([standing[i] for i in range(len(tb.players))]),
                            strict=True):
            expected[uid] += pts
    view = services.tournament_view(t)
    shown = {row["player"]["id"]: row["score"] for row in view["standings"]}
    wrong = [uid for uid in shown if abs(shown[uid] - float(expected[uid])) > 0.001]
    if wrong:
        failures.append(f"{len(wrong)} standings differ from the games' results")
    if sum(expected.values()) != len(tables):
        failures.append(f"scores add up to {sum(expected.values())}, not {len(tables)}")
    pairs = Counter()
    for tb in tables:
        for i, a in enumerate(tb.players):
            for b in tb.players[i + 1:]:
                pairs[frozenset((a, b))] += 1
    repeats = sum(c - 1 for c in pairs.values() if c > 1)
    actions = GameAction.objects.filter(game_id__in=list(games)).count()
    played = [tb for tb in tables if tb.status == "ended"]
    print(f"{args.game} Swiss, {args.players} players, {args.seats} seats a table, {args.rounds} rounds, "
          f"CPU fast: {len(played)} games ({actions} logged actions), {len(tables) - len(played)} byes, "
          f"{repeats} repeat pairings")
    print("  round wall time (s): " + ", ".join(f"{r}: {round_times[r]:.1f}" for r in sorted(round_times)))
    print(f"  total {total:.1f} s; winner {view['standings'][0]['player']['display_name']} on "
          f"{view['standings'][0]['score']}")
    print("  checks: " + ("all passed" if not failures else "; ".join(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
