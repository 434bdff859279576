"""The ``gradacc`` command line: the calculator and the run planner without a window.

Each subcommand lives in its own module exposing ``register(subparsers)``; the module
sets ``handler`` (``Namespace -> int``) as a parser default.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from .. import __version__
from ._common import PROG, UsageError

#: Subcommand modules, in help order.
COMMANDS = ("calc", "plan", "time", "export", "memory", "check", "activation")


class ArgumentParser(argparse.ArgumentParser):
    """Reports bad arguments as one line ("gradacc: error: --gpus: ...") and exit code 2."""

    def error(self, message: str) -> NoReturn:
        if message.startswith("argument "):
            message = message[len("argument ") :]
        message = " ".join(message.split())
        self.exit(2, f"{PROG}: error: {message}\n")


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog=PROG,
        description="Gradient accumulation calculator and run planner "
        "(memory in decimal GB, 1 GB = 10^9 bytes).",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        module_name = f"{__name__}.{name}"
        module = importlib.import_module(module_name)
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 2 bad arguments)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        code = int(args.handler(args))
        sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
        return code
    except UsageError as exc:
        sys.stderr.write(f"{PROG}: error: {exc}\n")
        return 2
    except SystemExit as exc:  # argparse: --help, --version, bad arguments
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except BrokenPipeError:
        # the reader went away (``gradacc … | head``): stop without a traceback, exit 1
        # as the Python documentation advises; stdout goes to devnull so the
        # interpreter's final flush does not fail again
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
