OPS: dict = {}  # filled by the chinchirorin engine work
