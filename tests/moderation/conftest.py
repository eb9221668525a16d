"""Fixtures of the moderation tests: a superuser, a moderator (staff, in the "Moderators" group made by
the migration) and a player, each with a test client signed in to the admin."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from tests.factories import UserFactory


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    client.user = user
    return client


@pytest.fixture
def superuser(db):
    return UserFactory(username="boss", display_name="Boss", is_staff=True, is_superuser=True)


def moderators_group() -> Group:
    """The "Moderators" group. The migration made it; a ``transactional_db`` test flushes it away, so it
    is then made again from the migration's own list."""
    import importlib

    from django.contrib.auth.models import Permission

    group = Group.objects.filter(name="Moderators").first()
    if group is None:
        listed = importlib.import_module("moderation.migrations.0002_moderators_group").MODERATOR_PERMISSIONS
        listed = listed + importlib.import_module("coins.migrations.0003_moderators_coins").COINS_MODERATOR_PERMISSIONS
        listed = listed + importlib.import_module(
            "tournaments.migrations.0002_moderators_tournaments").TOURNAMENTS_MODERATOR_PERMISSIONS
        listed = listed + importlib.import_module("rooms.migrations.0007_moderators_voice").VOICE_MODERATOR_PERMISSIONS
        listed = listed + importlib.import_module("moderation.migrations.0005_economy_void").VOID_MODERATOR_PERMISSIONS
        group = Group.objects.create(name="Moderators")
        group.permissions.set([Permission.objects.get(content_type__app_label=a, codename=c) for a, c in listed])
    return group


def make_moderator(**kwargs):
    """A staff user in the "Moderators" group."""
    user = UserFactory(is_staff=True, **kwargs)
    user.groups.add(moderators_group())
    return user


@pytest.fixture
def moderator(db):
    return make_moderator(username="mod", display_name="Mod")


@pytest.fixture
def boss(superuser):
    """The superuser's admin client."""
    return _signed_in(superuser)


@pytest.fixture
def mod(moderator):
    """The moderator's admin client."""
    return _signed_in(moderator)


@pytest.fixture
def nobody(db):
    """A signed-in player who is not staff."""
    return _signed_in(UserFactory(display_name="Plain"))
