"""Accounts: the custom User (guests and registered players), token auth, the Accounts API."""
