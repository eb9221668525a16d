"""Channels' ``WebsocketCommunicator``.

``channels.testing/__init__`` also imports the live-server test case, which needs ``daphne`` (not a
dependency here: the server is uvicorn). When daphne is missing, the ``channels.testing`` package is
registered without running that ``__init__`` and the communicator is imported from its own module.
"""

import sys
import types
from pathlib import Path

try:
    from channels.testing import WebsocketCommunicator
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the environment
    if not (exc.name or "").startswith("daphne"):
        raise
    import channels

    package = types.ModuleType("channels.testing")
    package.__path__ = [str(Path(channels.__file__).parent / "testing")]
    sys.modules["channels.testing"] = package
    from channels.testing.websocket import WebsocketCommunicator

__all__ = ["WebsocketCommunicator"]
