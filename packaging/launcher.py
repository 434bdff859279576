"""PyInstaller entry script: the frozen app starts here."""

import sys

from gradacc_desktop.app import main

if __name__ == "__main__":
    sys.exit(main())
