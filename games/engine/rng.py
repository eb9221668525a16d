"""Randomness: a secret per-game seed and the derived per-transition generators.

Scheme ``hmac-sha256-seq-v1`` (API.md "fairness"): the rng of the transition that produces seq ``n`` is
``random.Random(int.from_bytes(hmac_sha256(key=seed, msg=str(n)), "big"))``; CPU policies deciding at seq
``n`` use msg ``"bot:" + str(n)``. The initial state (seq 0) is made with the rng of seq 0.
"""

import functools
import hashlib
import hmac
import random
import secrets

SCHEME = "hmac-sha256-seq-v1"
SEED_BYTES = 32


def new_seed() -> bytes:
    """Return a fresh secret seed: 32 bytes from :mod:`secrets`."""
    return secrets.token_bytes(SEED_BYTES)


def _rng(seed: bytes, msg: str) -> random.Random:
    digest = hmac.new(seed, msg.encode("ascii"), hashlib.sha256).digest()
    return random.Random(int.from_bytes(digest, "big"))


def rng_for_seq(seed: bytes, seq: int) -> random.Random:
    """The rng of the transition that produces ``seq`` (0 for the initial state)."""
    return _rng(seed, str(seq))


def bot_rng(seed: bytes, seq: int) -> random.Random:
    """The rng a CPU policy uses when it decides at ``seq`` (the game's current seq)."""
    return _rng(seed, f"bot:{seq}")


def commitment(seed: bytes) -> str:
    """sha256 of the seed bytes (``bytes``-like), lowercase hex: shown from the start of a game. Cached
    (a game's seed never changes, and every seat's view of every action shows it)."""
    return _commitment(seed if isinstance(seed, bytes) else bytes(memoryview(seed)))


@functools.lru_cache(maxsize=4096)
def _commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()
