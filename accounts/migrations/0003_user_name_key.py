from django.db import migrations, models

from config.textpolicy import lookalike_key


def user_name_key(username, display_name):
    return f"{lookalike_key(username or '')}\n{lookalike_key(display_name or '')}"


def fill(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    for user in User.objects.only("pk", "username", "display_name").iterator(chunk_size=1000):
        User.objects.filter(pk=user.pk).update(name_key=user_name_key(user.username, user.display_name))


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_sanctions_standing")]

    operations = [
        migrations.AddField(
            model_name="user",
            name="name_key",
            field=models.CharField(blank=True, default="", editable=False, max_length=1200,
                                   help_text="Look-alike search key of the username and display name "
                                             "(config.textpolicy.lookalike_key), kept by save()."),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
