"""Rooms: where friends gather, share a code, chat and play."""
