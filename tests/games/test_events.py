"""games.events: sending to many groups at once."""

from games import events


class _Layer:
    def __init__(self):
        self.got = []

    async def group_send(self, group, message):
        if group == "bad":
            raise RuntimeError("layer down for this group")
        self.got.append((group, message))


def test_group_send_many_sends_every_message_and_survives_a_failing_group(monkeypatch, caplog):
    layer = _Layer()
    monkeypatch.setattr(events, "get_channel_layer", lambda: layer)
    events.group_send_many([("a", {"n": 1}), ("bad", {"n": 2}), ("", {"n": 3}), ("b", {"n": 4})])
    assert sorted(layer.got, key=lambda gm: gm[0]) == [("a", {"n": 1}), ("b", {"n": 4})]
    assert "group_send to bad failed" in caplog.text


def test_group_send_many_without_a_layer_is_a_no_op(monkeypatch):
    monkeypatch.setattr(events, "get_channel_layer", lambda: None)
    events.group_send_many([("a", {"n": 1})])
