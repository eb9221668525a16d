"""Coins: in-game coins only (never bought, sold or cashed out). A wallet per user with an append-only
ledger, the pot and stakes of Chinchón games, paid re-entry, and daily/weekly challenges."""
