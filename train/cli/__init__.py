"""What a person at the terminal uses: the ``crates`` command line (``commands``: train, eval,
play, curves) and the game against the agents (``play``)."""

from .commands import main

__all__ = ["main"]
