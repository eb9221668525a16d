"""``python manage.py replay_game ID``: replay a game from its seed and action log and check that it
reaches the same state and result (scheme hmac-sha256-seq-v1, API.md "fairness"): see
:func:`games.replay.game_replay_check`. Exits non-zero (CommandError) on the first difference.
"""

from django.core.management.base import BaseCommand, CommandError

from games.engine import rng as rngmod
from games.models import Game
from games.replay import ReplayMismatch, game_replay_check


class Command(BaseCommand):
    help = "Replay a game from its seed and log and check the result."

    def add_arguments(self, parser):
        parser.add_argument("game_id", type=int)
        parser.add_argument("--seed", help="check against this seed (64 hex) instead of the stored one")

    def handle(self, *args, **opts):
        game = Game.objects.filter(pk=opts["game_id"]).first()
        if game is None:
            raise CommandError(f"no game {opts['game_id']}")
        seed = bytes.fromhex(opts["seed"]) if opts.get("seed") else None
        try:
            checked = game_replay_check(game, seed)
        except ReplayMismatch as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(self.style.SUCCESS(
            f"game {game.pk}: {checked.actions} actions replayed; same state and result "
            f"({rngmod.SCHEME}, commitment {checked.commitment})"))
        self.stdout.write(f"result: {checked.result}")
