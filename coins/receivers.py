"""Signal receivers of coins, connected in :meth:`coins.apps.CoinsConfig.ready`.

- ``post_save(User, created=True)`` -> the new user's wallet with its start grant (guests too).
"""

from django.contrib.auth import get_user_model
from django.db.models.signals import post_save

from coins.services import wallet_open


def on_user_saved(sender, instance, created=False, raw=False, **kwargs) -> None:
    """A user just created gets a wallet and the start grant, in the same transaction."""
    if created and not raw:
        wallet_open(user_id=instance.pk)


def connect() -> None:
    """Connect the receivers."""
    post_save.connect(on_user_saved, sender=get_user_model(), dispatch_uid="coins.on_user_saved")
