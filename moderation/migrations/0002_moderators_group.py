"""The "Moderators" group (issue 11, item 6): reports, chat, sanctions, rooms and games; no rating
adjustments, no user deletion, no model edits. Superusers have everything. The list is
``MODERATOR_PERMISSIONS``; the group gets exactly these (a test checks it)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "Moderators"
MODERATOR_PERMISSIONS = [
    # people: read users; sanctions and IP blocks: read, make, lift; reports: read, assign and resolve
    ("accounts", "view_user"),
    ("accounts", "view_sanction"),
    ("accounts", "add_sanction"),
    ("accounts", "change_sanction"),
    ("accounts", "view_ipblock"),
    ("accounts", "add_ipblock"),
    ("accounts", "change_ipblock"),
    ("moderation", "view_report"),
    ("moderation", "resolve_report"),
    ("moderation", "view_integrityflag"),
    ("moderation", "change_integrityflag"),
    # chat: read, hide
    ("rooms", "view_chatmessage"),
    ("rooms", "hide_chatmessage"),
    # rooms: read, close, kick
    ("rooms", "view_room"),
    ("rooms", "view_seat"),
    ("rooms", "view_roomkick"),
    ("rooms", "moderate_room"),
    # games: read, abort
    ("games", "view_game"),
    ("games", "view_gameplayer"),
    ("games", "view_gameaction"),
    ("games", "abort_game"),
    # ratings: read only (no ranking.adjust_rating)
    ("ranking", "view_rating"),
    ("ranking", "view_ratingchange"),
    # the audit trail
    ("auditlog", "view_logentry"),
]


def forwards(apps, schema_editor):
    # Permissions are normally made after all migrations (post_migrate): make them now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=GROUP)
    perms = []
    for app_label, codename in MODERATOR_PERMISSIONS:
        perms.append(Permission.objects.get(content_type__app_label=app_label, codename=codename))
    group.permissions.set(perms)


def backwards(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("moderation", "0001_initial"),
        ("accounts", "0002_sanctions_standing"),
        ("rooms", "0003_moderation"),
        ("games", "0002_alter_game_options_gameplayer_kicked"),
        ("ranking", "0006_moderation"),
        ("auditlog", "0017_add_actor_email"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
