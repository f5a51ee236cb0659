"""What a person at the terminal uses: the ``crates`` command line (``commands``: train, eval,
replay, play, serve, curves), the game against the agents in the terminal (``play``) and in a
browser (``seated``, the game; ``serve`` and ``table_page``, its web server and page, which need
the optional extra ``[web]``)."""

from .commands import main

__all__ = ["main"]
