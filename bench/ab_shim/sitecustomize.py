"""Put first on ``PYTHONPATH`` when running another tree of this repository with this checkout's virtualenv
(``PYTHONPATH=bench/ab_shim:TREE``): drops the editable install's finder from ``sys.meta_path``, which would
otherwise import a module that tree lacks from this checkout instead of failing as that tree would."""

import sys

sys.meta_path[:] = [f for f in sys.meta_path if "__editable__" not in repr(f)]
