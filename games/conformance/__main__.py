"""``python -m games.conformance``: see :mod:`games.conformance`."""

import sys

from games.conformance import main

sys.exit(main())
