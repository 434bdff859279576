"""gradacc-desktop: gradient-accumulation memory calculator."""

__version__ = "0.1.0"
APP_NAME = "gradacc-desktop"
ORGANIZATION_NAME = "gradacc"
ORGANIZATION_DOMAIN = "gradacc.github.io"
