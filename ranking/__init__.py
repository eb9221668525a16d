"""Ranking: Elo-style ratings per game, ranked play among friends, leaderboards, statistics."""
