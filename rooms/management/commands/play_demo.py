"""``python manage.py play_demo --server URL [--game chinchirorin|chinchon|both] [--seats N] [--actions rest|socket]``.

Plays whole games against a running server as real clients do (guests made over HTTP, one socket per
seat, actions chosen among ``legal_actions`` and posted with the latest view's ``seq``, or sent on the
socket with ``--actions socket`` as the play page does, retried on ``409 stale_seq``) and prints each game's final standing, its number of actions and of socket messages.
See :mod:`rooms.demo_client`.
"""

import asyncio
import json
import logging

from django.core.management.base import BaseCommand, CommandError

from rooms.demo_client import ACTION_PATHS, DemoError, play_game, standing_text


def _rules(text: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise CommandError(f"rules must be a JSON object: {exc}") from exc
    if not isinstance(value, dict):
        raise CommandError("rules must be a JSON object")
    return value


class Command(BaseCommand):
    help = "Play whole demo games against a running server over HTTP and WebSocket."

    def add_arguments(self, parser):
        parser.add_argument("--server", required=True, help="base URL, e.g. http://127.0.0.1:8000")
        parser.add_argument("--game", choices=["chinchirorin", "chinchon", "both"], default="both")
        parser.add_argument("--seats", type=int, default=2, help="client seats per game (default 2)")
        parser.add_argument("--chinchirorin-rules", default="{}", help="JSON settings (default: the defaults)")
        parser.add_argument("--chinchon-rules", default="{}", help="JSON settings (default: the defaults)")
        parser.add_argument("--timeout", type=float, default=900.0, help="seconds per game (default 900)")
        parser.add_argument("--seed", type=int, default=0, help="seed of the clients' choices")
        parser.add_argument("--actions", choices=ACTION_PATHS, default="rest",
                            help="rest: each action a POST (default); socket: sent on the seat's socket")

    def handle(self, *args, **opts):
        logging.getLogger("httpx").setLevel(logging.WARNING)
        games = ["chinchirorin", "chinchon"] if opts["game"] == "both" else [opts["game"]]
        rules = {"chinchirorin": _rules(opts["chinchirorin_rules"]), "chinchon": _rules(opts["chinchon_rules"])}
        for game in games:
            try:
                summary = asyncio.run(play_game(opts["server"], game=game, seats=opts["seats"], rules=rules[game],
                                                seed=opts["seed"], timeout=opts["timeout"],
                                                actions=opts["actions"]))
            except (DemoError, OSError, TimeoutError) as exc:
                raise CommandError(f"{game}: {exc}") from exc
            self.stdout.write(standing_text(summary))
