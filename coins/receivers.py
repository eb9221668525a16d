"""Signal receivers of coins, connected in :meth:`coins.apps.CoinsConfig.ready`.

- ``post_save(User, created=True)`` -> the new user's wallet with its start grant (guests too).
- ``games.signals.game_finishing(game_id)`` (in the game's transaction) -> the pot is paid
  (:func:`coins.pot.game_pot_settle`; an error fails the game's action, so coins and result commit together).
"""

from django.contrib.auth import get_user_model
from django.db.models.signals import post_save

from coins.game_coins import pots_pending
from coins.pot import game_pot_settle
from coins.services import wallet_open
from games.signals import game_finishing


def on_user_saved(sender, instance, created=False, raw=False, **kwargs) -> None:
    """A user just created gets a wallet and the start grant, in the same transaction."""
    if created and not raw:
        wallet_open(user_id=instance.pk)


def on_game_finishing(sender=None, game_id=None, **kwargs) -> None:
    """A game just finished (or was aborted) in this transaction: pay its pot, if it has one."""
    if game_id is not None and int(game_id) in pots_pending():
        pots_pending().discard(int(game_id))
        game_pot_settle(game_id=int(game_id))


def connect() -> None:
    """Connect the receivers."""
    post_save.connect(on_user_saved, sender=get_user_model(), dispatch_uid="coins.on_user_saved")
    game_finishing.connect(on_game_finishing, dispatch_uid="coins.on_game_finishing")
