"""A real server of the table for the tests that need one: ``crates serve``'s app on uvicorn
(``train.cli.serve.web_server``), on a thread and a free port, until the block ends. Import it
after ``pytest.importorskip`` of the web extra."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from train.cli.seated import Tables
from train.cli.serve import Limits, listen, web_server

from .waiting import wait_for


@contextmanager
def serving(tables: Tables, host: str = "127.0.0.1", limits: Limits | None = None) -> Iterator[str]:
    """``tables`` served on a free port of ``host`` within ``limits`` (None: the server's own);
    yields the base URL."""
    listener = listen(host, 0)
    server = web_server(tables, host, limits or Limits())
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    wait_for(lambda: server.started or not thread.is_alive(), 30, "the server started")
    assert server.started, "the server stopped before it started"
    try:
        yield f"http://{host}:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)
