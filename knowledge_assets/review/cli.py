"""The `knowledge-assets review` commands."""

import argparse


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    """Adds this module's subcommands to the `knowledge-assets` parser."""
