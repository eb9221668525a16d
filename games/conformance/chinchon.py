OPS: dict = {}  # filled by the chinchon engine work
