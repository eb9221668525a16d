"""Django's ``migrate``, its output logged line by line under ``LOG_FORMAT=json`` (config.commandlog)."""

from django.core.management.commands.migrate import Command as MigrateCommand

from config.commandlog import command_streams


class Command(MigrateCommand):
    def execute(self, *args, **options):
        streams = {k: v for k, v in command_streams("migrate").items() if options.get(k) in (None, False)}
        options.update(streams)
        try:
            return super().execute(*args, **options)
        finally:
            for stream in streams.values():
                if hasattr(stream, "close"):
                    stream.close()
