"""``python -m gradacc_desktop.measure``: see ``gradacc_desktop.measure.command``."""

import sys

from gradacc_desktop.measure.command import main

if __name__ == "__main__":
    sys.exit(main())
