"""Every user created before coins existed gets a wallet with the start grant (as new users do)."""

from django.db import migrations

START_GRANT = 500  # coins.rules.START_GRANT when this migration was written


def open_wallets(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    Wallet = apps.get_model("coins", "Wallet")
    LedgerEntry = apps.get_model("coins", "LedgerEntry")
    missing = User.objects.filter(wallet__isnull=True).values_list("pk", flat=True)
    for uid in missing.iterator(chunk_size=1000):
        wallet = Wallet.objects.create(user_id=uid, balance=START_GRANT)
        LedgerEntry.objects.create(wallet=wallet, amount=START_GRANT, balance_after=START_GRANT,
                                   reason="start_grant", key="start")


class Migration(migrations.Migration):
    dependencies = [("coins", "0001_initial"), ("accounts", "0001_initial")]

    operations = [migrations.RunPython(open_wallets, migrations.RunPython.noop)]
