"""Moderators (the "Moderators" group of moderation 0002) read the voice record (docs/voice.md):
``VOICE_MODERATOR_PERMISSIONS``."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "Moderators"
VOICE_MODERATOR_PERMISSIONS = [("rooms", "view_voicesession")]


def forwards(apps, schema_editor):
    app_config = apps.get_app_config("rooms")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=GROUP)
    group.permissions.add(*[Permission.objects.get(content_type__app_label=a, codename=c)
                            for a, c in VOICE_MODERATOR_PERMISSIONS])


def backwards(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=GROUP).first()
    if group is not None:
        group.permissions.remove(*Permission.objects.filter(
            content_type__app_label="rooms", codename__in=[c for _, c in VOICE_MODERATOR_PERMISSIONS]))


class Migration(migrations.Migration):
    dependencies = [
        ("rooms", "0006_voice"),
        ("moderation", "0002_moderators_group"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
