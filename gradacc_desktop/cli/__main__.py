"""``python -m gradacc_desktop.cli``."""

import sys

from . import main

sys.exit(main())
