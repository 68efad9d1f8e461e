"""Riding out a database that goes away for a moment (a restart, a failover, a network blip).

A worker thread's Django connection that lost its server stays broken until it is closed;
pooled connections are checked when they are taken (CONN_HEALTH_CHECKS), so closing the
broken one and trying again reaches the server once it is back.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from django.db import InterfaceError, OperationalError, connection

logger = logging.getLogger(__name__)

T = TypeVar("T")
DISCONNECTS = (OperationalError, InterfaceError)


def reset_connection() -> None:
    """Drop this thread's connection so that the next query takes a fresh one."""
    try:
        connection.close()
    except DISCONNECTS:
        pass


def retry_while_unreachable(
    operation: Callable[[], T],
    *,
    what: str,
    patience: float,
    already_done: Callable[[], T | None] | None = None,
) -> T:
    """Run `operation`, trying again while the database is unreachable, for up to `patience` s.

    Never inside a transaction: a retry must redo the whole unit of work. `already_done` is
    asked after a failure, once the database answers again, whether the failed attempt in
    fact committed (its reply was lost), so that it is not done twice: it returns that
    attempt's result, or None.
    """
    if connection.in_atomic_block:
        return operation()
    deadline = time.monotonic() + patience
    pause = 0.25
    failed = False
    while True:
        try:
            if failed and already_done is not None:
                done = already_done()
                if done is not None:
                    return done
            return operation()
        except DISCONNECTS as exc:
            if time.monotonic() + pause > deadline:
                raise
            if not failed:
                logger.warning("database unreachable during %s (%s); retrying", what, exc)
            failed = True
            reset_connection()
            time.sleep(pause)
            pause = min(pause * 2, 2.0)
