"""PyInstaller entry script: the frozen app starts here."""

import gc
import sys

# As gradacc_desktop/__main__.py: no collector passes during start-up; app.main turns it
# back on once the window is built.
gc.disable()

from gradacc_desktop.app import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
