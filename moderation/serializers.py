"""Serializers of the reports API."""

from rest_framework import serializers

from config.textpolicy import PolicyTextField
from config.timefmt import DateTimeMsField
from moderation.models import NOTE_MAX, Report


class ReportCreateSerializer(serializers.Serializer):
    """``POST /api/reports``: what is reported (``kind`` + ``target_id``), why (``reason``), and an
    optional ``note`` (≤ 500 characters under the text policy, ``config.textpolicy``)."""

    kind = serializers.ChoiceField(choices=Report.Kind.choices,
                                   help_text="user, chat_message (a message's id) or game (a game's id).")
    target_id = serializers.IntegerField(min_value=1, max_value=2**63 - 1,
                                         help_text="The id of the user, chat message or game.")
    reason = serializers.ChoiceField(choices=Report.Reason.choices)
    note = PolicyTextField(max_length=NOTE_MAX, min_length=0, required=False, default="")


class ReportSerializer(serializers.Serializer):
    """A report as its reporter sees it: ``{id, kind, target_id, reason, note, status, created_at}``
    (``status``: open until a moderator resolves it; the outcome is not shown to the reporter)."""

    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Report.Kind.choices)
    target_id = serializers.SerializerMethodField()
    reason = serializers.ChoiceField(choices=Report.Reason.choices)
    note = serializers.CharField()
    status = serializers.ChoiceField(choices=Report.Status.choices)
    created_at = DateTimeMsField()

    def get_target_id(self, report) -> int:
        return int(report.target_key.split(":", 1)[1])
