import gc
import sys

# Start-up allocates much and frees almost nothing: the cyclic collector's passes over
# PySide6's and the app's new objects would only cost time. app.main turns it back on
# once the window is built (after gc.freeze()).
gc.disable()

from gradacc_desktop.app import main  # noqa: E402

sys.exit(main())
