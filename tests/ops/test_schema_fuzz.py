"""Schema-driven fuzzing (schemathesis) of every operation of the OpenAPI schema, signed in as a player
seated in a game that is being played: no answer is a server error, and every answer (status, content
type, headers, body) is one the schema documents.

Path parameters name the player's own room, game, seat and a fellow player most of the time (so the
operations run their real logic), and schemathesis' own values otherwise (so the 404s are checked too).
Each example runs in a savepoint rolled back after it, so the world stays as built. Positive and
negative (schema-breaking) data; derandomised, so every run sends the same requests.
"""

import hashlib

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from rooms import services as room_services
from tests.factories import UserFactory, token_for

pytestmark = pytest.mark.django_db

CHECKS = [schemathesis.checks.not_a_server_error, status_code_conformance, content_type_conformance,
          response_headers_conformance, response_schema_conformance]
EXAMPLES = {GenerationMode.POSITIVE: 6, GenerationMode.NEGATIVE: 3}


@pytest.fixture
def wsgi_in_test_transaction():
    """Django's WSGI handler closes "old" connections around each request, which would end the test's
    transaction; the test client does not, and neither does this (as Django's ClientHandler)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield get_wsgi_application()
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


def _world() -> dict:
    """A chinchón game being played by the caller (seat 1) and its host; an open room of the caller's."""
    host, player, other = UserFactory(display_name="Host"), UserFactory(display_name="Player"), UserFactory()
    room = room_services.room_create(user=host, game="chinchon", seats=2)
    room_services.room_join(code=room.code, user=player)
    room = room_services.room_start(code=room.code, user=host)
    room.refresh_from_db()
    own = room_services.room_create(user=player, game="chinchirorin", seats=3)
    return {"token": token_for(player),
            "path": {"code": [room.code, own.code], "game_id": [room.game_id], "user_id": [host.pk, other.pk],
                     "index": [1, 2]}}


def _pick(case, world) -> None:
    """Real path parameters three times in four (chosen from the case's own bytes: deterministic)."""
    params = case.path_parameters or {}
    digest = hashlib.sha256(repr(sorted(params.items())).encode() + repr(case.body).encode()).digest()
    if digest[0] % 4 == 0:
        return
    for i, name in enumerate(params):
        choices = world["path"].get(name)
        if choices:
            params[name] = choices[digest[i + 1] % len(choices)]


def test_every_operation_answers_as_its_schema_says(wsgi_in_test_transaction):
    world = _world()
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", wsgi_in_test_transaction)
    headers = {"Authorization": f"Token {world['token']}"}
    failures, operations = [], 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1
        for mode, examples in EXAMPLES.items():
            if mode == GenerationMode.NEGATIVE and not (operation.body or operation.query):
                continue  # nothing a client sends there can break the schema (path strings are any text)

            @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                      phases=[Phase.explicit, Phase.generate],
                      suppress_health_check=list(HealthCheck))
            @given(case=operation.as_strategy(generation_mode=mode))
            def run(case):
                _pick(case, world)
                with transaction.atomic():
                    try:
                        response = case.call(headers=headers)
                    finally:
                        transaction.set_rollback(True)
                case.validate_response(response, checks=CHECKS, headers=headers)

            try:
                run()
            except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - every operation's failure, then fail
                failures.append(f"{operation.label} [{mode}]: {str(exc)[:700]}")
    assert operations >= 30
    assert not failures, "\n\n".join(failures)
