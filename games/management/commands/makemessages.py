"""``manage.py makemessages`` for the server's texts (locale/, domain django).

Django's command, plus: error details are extracted where they are written — the second argument of
``ApiError(code, detail, ...)`` and of ``invalid_field(field, message)`` — without wrapping each in
``gettext`` (``config.errors.ApiError.body`` translates the detail when the answer is rendered, in the
request's language). By default it skips the web client (``web/``, its own catalogue), tests, benchmarks
and scripts, and writes no source locations (smaller diffs).
"""

from django.core.management.commands import makemessages

IGNORED = ["web", "tests", "bench", "scripts", "var", "staticfiles"]


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=ApiError:2",
                        "--keyword=invalid_field:2"]

    def handle(self, *args, **options):
        options["ignore_patterns"] = [*options.get("ignore_patterns", []), *IGNORED]
        options["no_location"] = True
        return super().handle(*args, **options)
