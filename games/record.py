"""A finished game's public record (``GET /api/games/{id}/record``, docs/party.md "Your games"): what the
API shows anyone after the end, in one JSON document to download.

``{format: "chinchi-game-record/1", game: {id, game, rules, ranked, turn_seconds, status, created_at,
finished_at}, players: [{seat, display_name, cpu}], view: the spectator view of the final state
(:func:`games.selectors.game_view` with no seat: no hidden card), fairness: {commitment, seed, scheme},
result, events: [{seq, index, by?, type, ...}] (every public event of the log, in order: no seat's
private events)}``. ``seed`` and the log let anyone replay the game (API.md "fairness").
"""

from __future__ import annotations

from config.timefmt import iso_ms
from games.models import Game, GameAction, GamePlayer
from games.selectors import game_fairness, game_view, log_entries

RECORD_FORMAT = "chinchi-game-record/1"


def game_record(game: Game) -> dict:
    """The public record of ``game`` (finished or aborted; the caller checks)."""
    players = list(GamePlayer.objects.filter(game=game).select_related("user").order_by("seat"))
    view = game_view(game=game, seat=None, players=players)
    rows = GameAction.objects.filter(game=game).order_by("seq").values_list("seq", "by", "events")
    return {
        "format": RECORD_FORMAT,
        "game": {"id": game.pk, "game": game.game, "rules": game.rules, "ranked": game.ranked,
                 "turn_seconds": game.turn_seconds, "status": game.status,
                 "created_at": iso_ms(game.created_at), "finished_at": iso_ms(game.finished_at)},
        "players": [{"seat": p["seat"], "display_name": p["display_name"], "cpu": p["cpu"]} for p in view["players"]],
        "view": view,
        "fairness": game_fairness(game),
        "result": view["result"],
        "events": log_entries(list(rows.iterator(chunk_size=500)), None),
    }
