"""Wake stream readers when a run's log grows: one LISTEN connection per web process.

A notification carries the new event itself when it is small (`run:seq:type:frame`, see
`eventlog.notify_payload`), so a live reader sends it without reading the log; a large event
comes as `run:seq`, and the reader reads the log for it, as it does to catch up.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from dataclasses import dataclass, field

from django.db import connection

from queries.eventlog import CHANNEL

logger = logging.getLogger(__name__)

_CONNECT_KEYS = (
    "dbname",
    "user",
    "password",
    "host",
    "port",
    "sslmode",
    "sslrootcert",
    "sslcert",
    "sslkey",
)


def _conninfo() -> dict:
    params = connection.get_connection_params()
    return {key: params[key] for key in _CONNECT_KEYS if params.get(key) not in (None, "")}


# A reader that falls this far behind its notifications reads the log instead.
MAX_QUEUED_FRAMES = 1000


@dataclass(eq=False)  # compared and hashed by identity: waiters live in sets
class Waiter:
    """One stream's mailbox: a wake-up flag and the events notified since it last looked."""

    event: asyncio.Event = field(default_factory=asyncio.Event)
    # Set when notifications may have been missed (the LISTEN connection was re-made).
    must_read: bool = False
    # (seq, type, frame), or (seq, None, None) when the notification did not carry the event.
    frames: deque = field(default_factory=lambda: deque(maxlen=MAX_QUEUED_FRAMES))

    def set(self) -> None:
        self.event.set()

    def clear(self) -> None:
        self.event.clear()

    def is_set(self) -> bool:
        return self.event.is_set()

    async def wait(self) -> None:
        await self.event.wait()


def parse_payload(payload: str) -> tuple[str, int, str | None, str | None]:
    """Return (run id, seq, type, frame) of a notification; type and frame may be None."""
    parts = payload.split(":", 3)
    run_id, seq = parts[0], int(parts[1])
    if len(parts) == 4:
        return run_id, seq, parts[2], parts[3]
    return run_id, seq, None, None


class NotifyHub:
    """Fan PostgreSQL notifications out to the asyncio waiters of this process's event loop."""

    def __init__(self) -> None:
        self.waiters: dict[str, set[Waiter]] = {}
        self.task: asyncio.Task | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.listening = False
        self.notifications = 0

    def _ensure_started(self) -> None:
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.loop is not loop:
            self.loop = loop
            self.task = loop.create_task(self._listen())

    async def _listen(self) -> None:
        import psycopg
        from asgiref.sync import sync_to_async

        params = await sync_to_async(_conninfo)()
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(autocommit=True, **params)
                async with conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.listening = True
                    # Anything appended while we were not listening is found by the readers'
                    # periodic re-check; wake everyone once to shorten that delay.
                    self._wake_all()
                    async for notification in conn.notifies():
                        self.notifications += 1
                        try:
                            run_id, seq, kind, frame = parse_payload(notification.payload)
                        except (ValueError, IndexError):
                            continue
                        for waiter in list(self.waiters.get(run_id, ())):
                            waiter.frames.append((seq, kind, frame))
                            waiter.set()
            except asyncio.CancelledError:
                self.listening = False
                raise
            except Exception as exc:
                self.listening = False
                logger.warning("run-event LISTEN connection lost (%s); retrying", exc)
                await asyncio.sleep(1.0)

    def _wake_all(self) -> None:
        for waiters in self.waiters.values():
            for waiter in waiters:
                waiter.must_read = True
                waiter.set()

    def register(self, run_id) -> Waiter:
        """Return a mailbox that is set whenever the run's log grows, with what it grew by."""
        self._ensure_started()
        waiter = Waiter()
        self.waiters.setdefault(str(run_id), set()).add(waiter)
        return waiter

    def unregister(self, run_id, waiter: Waiter) -> None:
        waiters = self.waiters.get(str(run_id))
        if waiters is not None:
            waiters.discard(waiter)
            if not waiters:
                self.waiters.pop(str(run_id), None)


hub = NotifyHub()


async def wait(waiter: Waiter, timeout: float) -> bool:
    """Wait until woken or the timeout passes; return whether it was woken."""
    if timeout <= 0:
        return waiter.is_set()
    try:
        await asyncio.wait_for(waiter.wait(), timeout)
        return True
    except TimeoutError:
        return False
