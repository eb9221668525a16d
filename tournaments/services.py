"""Tournament services: every change to a tournament goes through one of these (REST, the Celery start
and sweep, the game-end receiver, the admin).

Each public service runs in a transaction and locks the tournament row (``select_for_update``) before it
reads entrants or tables, so joins, the start and the ends of tables are serialized per tournament: two
tables ending at the same moment start the next round once. Every change bumps ``version`` and, after
the commit, sends ``{"type": "tournament", "tournament"}`` to the group ``tournament-<code>``. Errors are
:class:`config.errors.ApiError` (docs/tournaments.md "Errors"); a refused call changes nothing.

Rooms are made and started through :mod:`rooms.services` (``room_create``, ``room_start``, and
``room_close`` for a moderator's cancel); ratings follow from the rooms being ranked when the tournament
is rated (ranking rates every ranked game the same way).
"""

import logging
from datetime import timedelta

from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext

from accounts.sanctions import user_check_standing, user_standing
from config.audit import audit_record
from config.errors import ApiError, invalid_field
from config.links import public_link
from games.engine.errors import InvalidRules
from games.engine.registry import get_engine
from games.events import group_send
from games.models import Game
from ranking.selectors import friend_ids
from ranking.services import queue_rules
from rooms import services as rooms_services
from rooms.models import Seat
from tournaments import pairing
from tournaments.models import (
    Tournament,
    TournamentFormat,
    TournamentPlayer,
    TournamentStatus,
    TournamentTable,
)
from tournaments.serializers import table_results, tournament_data

logger = logging.getLogger(__name__)

MAX_PLAYERS = {TournamentFormat.SWISS: 64, TournamentFormat.ROUND_ROBIN: 8}
MAX_AHEAD = timedelta(days=30)
RULE_FIELD = {"chinchon": "preset", "chinchirorin": "style"}
TABLE_MARK_SECONDS = 3 * 24 * 3600


# ------------------------------------------------------------------------------------------ delivery
def _entries(t: Tournament) -> list[TournamentPlayer]:
    return list(TournamentPlayer.objects.filter(tournament=t).select_related("user").order_by("seed"))


def _tables(t: Tournament) -> list[TournamentTable]:
    return list(TournamentTable.objects.filter(tournament=t).select_related("room").order_by("round", "index"))


def _changed(t: Tournament, *fields: str) -> None:
    """Save ``t`` with ``version + 1`` and, after the commit, send the ``tournament`` message built now
    (kept as ``t.saved_data``)."""
    t.version += 1
    t.save(update_fields=["version", *fields])
    t.saved_data = tournament_data(t, _entries(t), _tables(t))
    message = {"type": "tournament.update", "payload": {"type": "tournament", "tournament": t.saved_data}}
    group = t.group
    transaction.on_commit(lambda: group_send(group, message))


def _lock(code: str) -> Tournament:
    t = (Tournament.objects.select_for_update(of=("self",)).select_related("organiser")
         .filter(code=str(code).upper()).first())
    if t is None:
        raise ApiError("not_found", gettext("No such tournament."), 404)
    return t


def _require_organiser(t: Tournament, user) -> None:
    if t.organiser_id != user.pk:
        raise ApiError("not_organiser", gettext("Only the organiser may do that."), 403)


def _over(t: Tournament) -> ApiError:
    return ApiError("tournament_over", gettext("The tournament is over."), 409)


def _started() -> ApiError:
    return ApiError("already_started", gettext("The tournament has started."), 409)


# -------------------------------------------------------------------------------------------- create
@transaction.atomic
def tournament_create(*, user, game: str, format: str, starts_at, seats: int = 2, rounds: int | None = None,
                      preset: str = "", style: str = "", max_players: int | None = None, turn_seconds: int = 60,
                      rated: bool = False, cpu_speed: str = "normal", name: str = "") -> Tournament:
    """Create a tournament with ``user`` as organiser and first entrant (seed 1). Its start at ``starts_at``
    is :func:`tournament_start`'s (the Celery task the API schedules, and the beat sweep).

    Raises 403 ``registration_required`` (guest), ``banned``/``suspended``; 400 ``invalid`` naming
    ``preset``/``style`` (unknown, or for the other game), ``seats`` (outside the game's range, or not 2 for
    round robin), ``rounds`` (missing for Swiss), ``max_players`` (over 8 round robin / 64 Swiss),
    ``starts_at`` (past, or more than 30 days ahead).
    """
    if user.is_guest:
        raise ApiError("registration_required", gettext("Tournaments are organised by registered players."), 403)
    user_check_standing(user)
    for field, value in (("preset", preset), ("style", style)):
        if value and RULE_FIELD[game] != field:
            raise invalid_field(field, gettext("Not a setting of this game."))
    rules = queue_rules(game=game, preset=preset, style=style)
    try:
        get_engine(game).validate_rules(dict(rules), seats)
    except InvalidRules as exc:
        field = exc.field if exc.field in ("seats", "preset", "style") else RULE_FIELD[game]
        raise invalid_field(field, gettext(exc.template).format(**exc.params)) from exc
    if format == TournamentFormat.ROUND_ROBIN:
        if seats != 2:
            raise invalid_field("seats", gettext("A round robin is played at tables of 2."))
        rounds = 0
    elif not rounds:
        raise invalid_field("rounds", gettext("Give the number of rounds (1–12)."))
    cap = MAX_PLAYERS[format]
    if max_players is None:
        max_players = cap
    if max_players > cap:
        raise invalid_field("max_players", gettext("At most {n} players.").format(n=cap))
    now = timezone.now()
    if starts_at < now or starts_at > now + MAX_AHEAD:
        raise invalid_field("starts_at", gettext("Give a time from now to 30 days ahead."))
    for _ in range(20):
        try:
            with transaction.atomic():
                t = Tournament.objects.create(
                    code=rooms_services.new_code(), organiser=user, name=name.strip(), game_name=game, rules=rules,
                    format=format, rounds=rounds, seats=seats, max_players=max_players, turn_seconds=turn_seconds,
                    rated=rated, cpu_speed=cpu_speed, starts_at=starts_at)
            break
        except IntegrityError:  # the code is taken: draw another
            continue
    else:  # pragma: no cover - 31**6 codes
        raise ApiError("server_busy", "Could not allocate a tournament code; try again.", 503)
    TournamentPlayer.objects.create(tournament=t, user=user, seed=1)
    _changed(t)
    return t


# ------------------------------------------------------------------------------------ entrants (open)
@transaction.atomic
def tournament_join(*, code: str, user) -> Tournament:
    """Enter the tournament (idempotent). The code is the invitation: it comes with the link, and the
    organiser's friends see it in their list (``GET /api/tournaments``).

    Raises 404, 403 ``banned``/``suspended``, ``registration_required`` (guest, rated), 409
    ``already_started``, ``tournament_over``, ``tournament_full``.
    """
    t = _lock(code)
    user_check_standing(user)
    if TournamentPlayer.objects.filter(tournament=t, user=user).exists():
        return t
    if t.status == TournamentStatus.RUNNING:
        raise _started()
    if t.status != TournamentStatus.OPEN:
        raise _over(t)
    if t.rated and user.is_guest:
        raise ApiError("registration_required", gettext("Rated tournaments are for registered players."), 403)
    entries = list(TournamentPlayer.objects.filter(tournament=t).values_list("seed", flat=True))
    if len(entries) >= t.max_players:
        raise ApiError("tournament_full", gettext("The tournament is full."), 409)
    TournamentPlayer.objects.create(tournament=t, user=user, seed=max(entries, default=0) + 1)
    _changed(t)
    return t


@transaction.atomic
def tournament_leave(*, code: str, user) -> Tournament:
    """Leave: before the start the entry goes; once running the player withdraws (not paired again; a game
    in progress goes on, the player may leave its room as from any game).

    Raises 404, 403 ``not_a_player``, 409 ``tournament_over``.
    """
    t = _lock(code)
    entry = TournamentPlayer.objects.filter(tournament=t, user=user).first()
    if entry is None:
        raise ApiError("not_a_player", gettext("You are not in this tournament."), 403)
    if t.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        raise _over(t)
    _drop(t, entry)
    _changed(t)
    return t


def _drop(t: Tournament, entry: TournamentPlayer) -> None:
    if t.status == TournamentStatus.OPEN:
        entry.delete()
    elif not entry.withdrawn:
        entry.withdrawn = True
        entry.save(update_fields=["withdrawn"])


@transaction.atomic
def tournament_remove_player(*, code: str, user, player_id: int) -> Tournament:
    """The organiser removes entrant ``player_id`` before the start.

    Raises 404 (tournament, or no such entrant), 403 ``not_organiser``, 409 ``already_started``,
    ``tournament_over``, 400 ``invalid`` naming ``player`` (the organiser's own entry: leave instead).
    """
    t = _lock(code)
    _require_organiser(t, user)
    if t.status == TournamentStatus.RUNNING:
        raise _started()
    if t.status != TournamentStatus.OPEN:
        raise _over(t)
    entry = TournamentPlayer.objects.filter(tournament=t, user_id=player_id).first()
    if entry is None:
        raise ApiError("not_found", gettext("No such entrant."), 404)
    if entry.user_id == user.pk:
        raise invalid_field("player", gettext("That is you; leave the tournament instead."))
    entry.delete()
    _changed(t)
    return t


@transaction.atomic
def tournament_cancel(*, code: str, user) -> Tournament:
    """The organiser cancels before the start (idempotent once cancelled).

    Raises 404, 403 ``not_organiser``, 409 ``already_started`` (moderators cancel a running one),
    ``tournament_over`` (finished).
    """
    t = _lock(code)
    _require_organiser(t, user)
    if t.status == TournamentStatus.CANCELLED:
        return t
    if t.status == TournamentStatus.RUNNING:
        raise _started()
    if t.status != TournamentStatus.OPEN:
        raise _over(t)
    _end(t, TournamentStatus.CANCELLED, "organiser")
    return t


def _end(t: Tournament, status: str, reason: str) -> None:
    t.status, t.ended_reason, t.finished_at = status, reason, timezone.now()
    _changed(t, "status", "ended_reason", "finished_at", "round", "rounds")


# ------------------------------------------------------------------------------------------- rounds
@transaction.atomic
def tournament_start(*, tournament_id: int, now=None) -> bool:
    """Start an ``open`` tournament whose ``starts_at`` has come (the Celery task and the sweep; safe to
    run late or twice): round robin fixes its rounds from the entrants, round 1 is paired and its rooms
    started. Fewer than two entrants in good standing: cancelled (``not_enough_players``). True if it
    started or was cancelled now."""
    now = now or timezone.now()
    t = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if t is None or t.status != TournamentStatus.OPEN or t.starts_at > now:
        return False
    entries = _entries(t)
    _withdraw_sanctioned(entries)
    active = [e for e in entries if not e.withdrawn]
    if len(active) < 2:
        _end(t, TournamentStatus.CANCELLED, "not_enough_players")
        return True
    if t.format == TournamentFormat.ROUND_ROBIN:
        t.rounds = pairing.round_robin_rounds(len(entries))
    t.status = TournamentStatus.RUNNING
    _start_round(t, entries, [])
    return True


def _withdraw_sanctioned(entries: list[TournamentPlayer]) -> None:
    """A banned or suspended entrant is out: withdrawn before each round."""
    for e in entries:
        if not e.withdrawn and user_standing(e.user) is not None:
            e.withdrawn = True
            e.save(update_fields=["withdrawn"])


def _start_round(t: Tournament, entries: list[TournamentPlayer], tables: list[TournamentTable]) -> None:
    """Pair and start the rounds after ``t.round`` until one has a game on (rounds of byes only score at
    once), or finish the tournament. ``t`` locked; ``entries`` all of its entrants; ``tables`` all of its
    tables so far."""
    results = table_results(tables)
    while True:
        if t.round >= t.rounds:
            _end(t, TournamentStatus.FINISHED, "completed")
            return
        withdrawn = [e.user_id for e in entries if e.withdrawn]
        if t.format == TournamentFormat.ROUND_ROBIN:
            groups, byes = pairing.round_robin_pairings([e.user_id for e in entries], t.round + 1, withdrawn)
        else:
            rows = pairing.standings(t.format, {e.user_id: e.seed for e in entries}, results, withdrawn)
            order = [r.player for r in rows if not r.withdrawn]
            if len(order) < 2:
                _end(t, TournamentStatus.FINISHED, "not_enough_players")
                return
            groups, bye = pairing.swiss_pairings(order, t.seats, pairing.met_pairs(results),
                                                 had_bye=[r.player for r in rows if r.byes])
            byes = [bye] if bye is not None else []
        t.round += 1
        users = {e.user_id: e.user for e in entries}
        for i, group in enumerate(groups):
            room = _open_table(t, [users[uid] for uid in group])
            TournamentTable.objects.create(tournament=t, round=t.round, index=i, players=list(group), room=room,
                                           game_id=room.game_id)
            mark_table_game(room.game_id)
        for j, uid in enumerate(byes, start=len(groups)):
            TournamentTable.objects.create(tournament=t, round=t.round, index=j, players=[uid],
                                           status=TournamentTable.BYE, ended_at=timezone.now())
            results.append(pairing.TableResult(t.round, (uid,), None, bye=True))
        if groups:
            _changed(t, "status", "rounds", "round")
            return


def table_game_key(game_id: int) -> str:
    return f"tournaments:table-game:{game_id}"


def mark_table_game(game_id: int) -> None:
    """Note in the cache that ``game_id`` is a tournament table's, so that its end is handed over without
    a database query on the games' action path (:mod:`tournaments.receivers`). A lost mark (the cache
    emptied, Redis down) only delays the table's end to the next sweep."""
    try:
        cache.set(table_game_key(game_id), 1, TABLE_MARK_SECONDS)
    except Exception:  # noqa: BLE001 - the sweep settles the table without it
        logger.warning("could not mark game %s as a tournament table's", game_id)


def _open_table(t: Tournament, users: list):
    """A room for ``users`` (seat order; the first hosts) with the tournament's settings, its game started.
    The room is ranked when the tournament is rated."""
    host = users[0]
    room = rooms_services.room_create(user=host, game=t.game_name, seats=len(users), rules=dict(t.rules),
                                      turn_seconds=t.turn_seconds, ranked=t.rated, cpu_speed=t.cpu_speed)
    for i, u in enumerate(users[1:], start=1):
        Seat.objects.filter(room=room, index=i).update(user=u)
    return rooms_services.room_start(code=room.code, user=host)


def _places(game: Game | None, players: list[int]) -> list[int] | None:
    """Each seat's final place from the game's ``result.standing``; ``None`` when the game has none
    (aborted) or it is malformed."""
    result = game.result if game is not None and isinstance(game.result, dict) else {}
    places = {}
    for row in result.get("standing") or []:
        try:
            places[int(row["seat"])] = int(row["place"])
        except (KeyError, TypeError, ValueError):
            continue
    if game is None or game.status != Game.FINISHED or set(places) != set(range(len(players))):
        return None
    return [places[i] for i in range(len(players))]


@transaction.atomic
def tournament_table_ended(*, game_id: int) -> bool:
    """The game of a tournament table ended (``games.signals.game_finished``, and the sweep): record its
    places and, when it was the last table of the round in play, start the next round (or finish). The
    tournament row is locked first, so of two tables ending together one starts the next round and the
    other sees it started. Idempotent; True if the table was recorded now."""
    found = TournamentTable.objects.filter(game_id=game_id, status=TournamentTable.PLAYING).values_list(
        "tournament_id", flat=True).first()
    if found is None:
        return False
    t = Tournament.objects.select_for_update().select_related("organiser").get(pk=found)
    table = TournamentTable.objects.filter(game_id=game_id, tournament=t).first()
    game = Game.objects.filter(pk=game_id).first()
    if table is None or table.status != TournamentTable.PLAYING or (game is not None and game.status == Game.PLAYING):
        return False
    table.status, table.places, table.ended_at = TournamentTable.ENDED, _places(game, table.players), timezone.now()
    table.save(update_fields=["status", "places", "ended_at"])
    tables = _tables(t)
    if t.status == TournamentStatus.RUNNING and table.round == t.round \
            and not any(tb.status == TournamentTable.PLAYING for tb in tables if tb.round == t.round):
        entries = _entries(t)
        _withdraw_sanctioned(entries)
        _start_round(t, entries, tables)
    else:
        _changed(t)
    return True


def tournaments_sweep(*, now=None) -> dict:
    """The beat task's work: start the tournaments whose time has come, and settle tables whose game
    ended without its signal reaching us. Returns the counts."""
    now = now or timezone.now()
    due = list(Tournament.objects.filter(status=TournamentStatus.OPEN, starts_at__lte=now).values_list("pk", flat=True))
    started = sum(tournament_start(tournament_id=pk, now=now) for pk in due)
    stale = list(TournamentTable.objects.filter(status=TournamentTable.PLAYING, game__isnull=False)
                 .exclude(game__status=Game.PLAYING).values_list("game_id", flat=True))
    settled = sum(tournament_table_ended(game_id=gid) for gid in stale)
    return {"started": started, "settled": settled}


# ------------------------------------------------------------------------------------------ reading
def tournament_get(*, code: str) -> Tournament:
    """The tournament of ``code`` (any signed-in user holding the code may look). Raises 404."""
    t = Tournament.objects.select_related("organiser").filter(code=str(code).upper()).first()
    if t is None:
        raise ApiError("not_found", gettext("No such tournament."), 404)
    return t


def tournament_view(t: Tournament, base_url: str | None = None) -> dict:
    """The ``tournament`` shape of ``t`` as stored now."""
    return tournament_data(t, _entries(t), _tables(t), base_url)


def tournament_view_link(code: str, base_url: str | None = None) -> str:
    """The link that opens the tournament in the web client: ``<base>/tournament/<code>``."""
    return public_link(f"/tournament/{code}", base_url)


def tournaments_for_user(user) -> list[Tournament]:
    """The caller's tournaments (organised or entered) and the open ones its friends organise, newest
    first, at most 50."""
    mine = TournamentPlayer.objects.filter(user=user).values_list("tournament_id", flat=True)
    q = Q(organiser=user) | Q(pk__in=mine) | Q(organiser_id__in=friend_ids(user.pk), status=TournamentStatus.OPEN)
    return list(Tournament.objects.filter(q).select_related("organiser").order_by("-id")[:50])


# --------------------------------------------------------------------------------------- moderation
def _reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise invalid_field("reason", "Give a reason.")
    return reason[:200]


@transaction.atomic
def tournament_moderate_cancel(*, tournament_id: int, by, reason: str) -> Tournament:
    """A moderator cancels a tournament at any time: the rooms of tables in play are closed (their games
    aborted, unrated: ``rooms.services.room_close``). One audit row. Idempotent for an ended tournament.
    Raises 404, 400 ``invalid`` naming ``reason``."""
    reason = _reason(reason)
    t = Tournament.objects.select_for_update().select_related("organiser").filter(pk=tournament_id).first()
    if t is None:
        raise ApiError("not_found", "No such tournament.", 404)
    if t.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        return t
    before = t.status
    t.status = TournamentStatus.CANCELLED  # first: a table ending from here on starts no round
    t.save(update_fields=["status"])
    for table in TournamentTable.objects.filter(tournament=t, status=TournamentTable.PLAYING, room__isnull=False):
        rooms_services.room_close(room_id=table.room_id, by=by, reason=reason)
    _end(t, TournamentStatus.CANCELLED, "moderator")
    audit_record(actor=by, action="tournament_cancel", target=t, reason=reason,
                 changes={"status": [before, TournamentStatus.CANCELLED]})
    return t


@transaction.atomic
def tournament_moderate_remove(*, tournament_id: int, user_id: int, by, reason: str) -> Tournament:
    """A moderator removes entrant ``user_id``: before the start the entry goes, after it the player is
    withdrawn (not paired again). One audit row. Raises 404 (tournament or entrant), 400 ``invalid``
    naming ``reason``."""
    reason = _reason(reason)
    t = Tournament.objects.select_for_update().select_related("organiser").filter(pk=tournament_id).first()
    entry = TournamentPlayer.objects.filter(tournament_id=tournament_id, user_id=user_id).first() if t else None
    if entry is None:
        raise ApiError("not_found", "No such entrant.", 404)
    _drop(t, entry)
    _changed(t)
    audit_record(actor=by, action="tournament_remove", target=t, reason=reason, user_id=user_id)
    return t
