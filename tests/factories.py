"""factory_boy factories for the models tests need."""

import factory

from accounts.models import User
from accounts.tokens import token_issue

PASSWORD = "correct-horse-battery-9"


class UserFactory(factory.django.DjangoModelFactory):
    """A registered player whose password is ``PASSWORD``."""

    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"player{n}")
    display_name = factory.Sequence(lambda n: f"Player {n}")
    is_guest = False
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class GuestFactory(UserFactory):
    """A guest: no usable password."""

    username = factory.Sequence(lambda n: f"guest-{n:012x}")
    is_guest = True
    password = factory.PostGenerationMethodCall("set_unusable_password")


def token_for(user) -> str:
    """A new API token key of ``user`` (stored hashed: ``accounts.tokens``)."""
    return token_issue(user)
