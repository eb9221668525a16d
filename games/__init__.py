"""Games: the pure rules engines (games.engine), CPU policies (games.bots) and the Django layer."""
