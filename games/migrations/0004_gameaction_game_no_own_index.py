# The action log's foreign key to its game loses its own index: the unique (game, seq) index serves every
# look-up by game. Only the index is dropped (the same statement on PostgreSQL and SQLite); Django's
# AlterField would also drop and re-add the foreign key, checking every row of the table again.

import django.db.models.deletion
from django.db import migrations, models

INDEX = "games_gameaction_game_id_d5a22e32"


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0003_created_at_is_the_service_clock'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    sql=f'DROP INDEX IF EXISTS "{INDEX}"',
                    reverse_sql=f'CREATE INDEX "{INDEX}" ON "games_gameaction" ("game_id")',
                ),
            ],
            state_operations=[
                migrations.AlterField(
                    model_name='gameaction',
                    name='game',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE,
                                            related_name='actions', to='games.game'),
                ),
            ],
        ),
    ]
