"""Serializers of the reports, notices and appeals API."""

from rest_framework import serializers

from config.textpolicy import PolicyTextField
from config.timefmt import DateTimeMsField
from moderation.models import APPEAL_MAX, NOTE_MAX, Appeal, Notice, Report


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


class NoticeSerializer(serializers.Serializer):
    """``{id, kind, text, created_at}``: ``kind`` warning / report_acted / appeal_decided."""

    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Notice.Kind.choices)
    text = serializers.CharField()
    created_at = DateTimeMsField()


class NoticeListSerializer(serializers.Serializer):
    """``GET /api/me/notices``: the caller's notices not marked seen, oldest first (at most 50)."""

    notices = NoticeSerializer(many=True)


class NoticeSeenSerializer(serializers.Serializer):
    """``POST /api/me/notices/seen``: mark every notice with an id up to ``up_to`` seen."""

    up_to = serializers.IntegerField(min_value=1, max_value=2**63 - 1)


class NoticeSeenAnswerSerializer(serializers.Serializer):
    marked = serializers.IntegerField(help_text="How many notices were unseen and are now marked seen.")


class AppealCreateSerializer(serializers.Serializer):
    """``POST /api/appeals``: appeal the sanction ``sanction_id`` (the ``sanction_id`` of a ``403 banned /
    suspended / muted`` answer) with ``text`` (1–1000 characters under the text policy)."""

    sanction_id = serializers.IntegerField(min_value=1, max_value=2**63 - 1)
    text = PolicyTextField(max_length=APPEAL_MAX, min_length=1)


class AppealSerializer(serializers.Serializer):
    """An appeal as its author sees it: ``{id, sanction_id, status, created_at}`` (``status`` open,
    granted or rejected)."""

    id = serializers.IntegerField()
    sanction_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Appeal.Status.choices)
    created_at = DateTimeMsField()
