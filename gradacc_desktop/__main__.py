import sys

from gradacc_desktop.app import main

sys.exit(main())
