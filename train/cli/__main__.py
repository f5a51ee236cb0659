"""``python -m train.cli ...``: the ``crates`` command without the installed script."""

import sys

from .commands import main

sys.exit(main())
