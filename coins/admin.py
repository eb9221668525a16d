"""Admin of coins: wallets and ledgers are read-only; a moderator with ``coins.adjust_wallet`` (or a
superuser) grants or removes coins by adding a ledger entry with a reason ("Ledger entries" > "Add"),
which goes through :func:`coins.services.wallet_adjust` (never a raw insert)."""

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html

from coins.models import LedgerEntry, Wallet
from coins.services import wallet_adjust
from config.errors import ApiError


@admin.register(Wallet)
class WalletAdmin(admin.ModelAdmin):
    """Read-only wallets with their ledger."""

    list_display = ["user", "balance", "updated_at"]
    search_fields = ["user__username", "user__display_name"]
    readonly_fields = ["user", "balance", "updated_at", "ledger"]

    @admin.display(description="Ledger")
    def ledger(self, obj):
        url = reverse("admin:coins_ledgerentry_changelist") + f"?{WalletFilter.parameter_name}={obj.pk}"
        return format_html('<a href="{}">{} entries</a>', url, obj.entries.count())

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return request.method in ("GET", "HEAD") and super().has_view_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False


class AdjustmentForm(forms.ModelForm):
    """Grant (positive) or remove (negative) coins: the user, the amount, the reason shown in the ledger."""

    user = forms.ModelChoiceField(queryset=get_user_model().objects.all(), widget=forms.NumberInput,
                                  help_text="The user id.")
    amount = forms.IntegerField(help_text="Coins: positive to grant, negative to remove.")
    note = forms.CharField(max_length=200, label="Reason")

    class Meta:
        model = LedgerEntry
        fields = ["amount", "note"]

    def clean_amount(self):
        amount = self.cleaned_data["amount"]
        if amount == 0:
            raise forms.ValidationError("Give a non-zero amount.")
        return amount

    def clean(self):
        data = super().clean()
        user, amount = data.get("user"), data.get("amount")
        if user is not None and amount is not None and amount < 0:
            balance = Wallet.objects.filter(pk=user.pk).values_list("balance", flat=True).first() or 0
            if balance + amount < 0:
                raise forms.ValidationError(f"The wallet holds {balance} coins; it cannot lose {-amount}.")
        return data


class WalletFilter(admin.SimpleListFilter):
    """One wallet's entries (``?wallet=<user id>``, the wallet page's "N entries" link)."""

    title = "wallet"
    parameter_name = "wallet"

    def lookups(self, request, model_admin):
        value = self.value()
        return [(value, f"user {value}")] if value and value.isdigit() else []

    def queryset(self, request, queryset):
        value = self.value()
        if value is None:
            return queryset
        return queryset.filter(wallet_id=int(value)) if value.isdigit() else queryset.none()


@admin.register(LedgerEntry)
class LedgerEntryAdmin(admin.ModelAdmin):
    """The ledger, read-only; "Add" is a moderator's grant or removal with a reason (capped for
    moderators, :mod:`coins.grants`)."""

    list_display = ["created_at", "wallet", "amount", "balance_after", "reason", "game", "challenge", "note",
                    "created_by"]
    list_filter = ["reason", WalletFilter]
    search_fields = ["wallet__user__username", "wallet__user__display_name", "note", "=game__id"]
    date_hierarchy = "created_at"
    list_select_related = ["wallet__user", "created_by"]

    def has_add_permission(self, request):
        return request.user.has_perm("coins.adjust_wallet")

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = AdjustmentForm
            kwargs["fields"] = ["amount", "note"]
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["user", "amount", "note"]
        return super().get_fields(request, obj)

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        return [f.name for f in LedgerEntry._meta.fields]

    def save_model(self, request, obj, form, change):
        """The adjustment goes through the service (locked, one ledger row); a balance spent meanwhile is
        reported, not a crash."""
        try:
            entry = wallet_adjust(user_id=form.cleaned_data["user"].pk, amount=form.cleaned_data["amount"],
                                  note=form.cleaned_data["note"], by=request.user)
        except (ApiError, ValueError) as exc:
            request._coins_refused = True
            self.message_user(request, str(getattr(exc, "detail", exc)), level=messages.ERROR)
            return
        obj.pk, obj.wallet_id = entry.pk, entry.wallet_id

    def log_addition(self, request, obj, message):
        if not getattr(request, "_coins_refused", False):
            return super().log_addition(request, obj, message)
        return None

    def response_add(self, request, obj, post_url_continue=None):
        if getattr(request, "_coins_refused", False):
            return HttpResponseRedirect(request.path)
        return super().response_add(request, obj, post_url_continue)
