"""Wake stream readers when a run's log grows: one LISTEN connection per web process."""

from __future__ import annotations

import asyncio
import logging

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


class NotifyHub:
    """Fan PostgreSQL notifications out to the asyncio waiters of this process's event loop."""

    def __init__(self) -> None:
        self.waiters: dict[str, set[asyncio.Event]] = {}
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
                        run_id = notification.payload.split(":", 1)[0]
                        for waiter in list(self.waiters.get(run_id, ())):
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
                waiter.set()

    def register(self, run_id) -> asyncio.Event:
        """Return an event that is set whenever the run's log may have grown."""
        self._ensure_started()
        waiter = asyncio.Event()
        self.waiters.setdefault(str(run_id), set()).add(waiter)
        return waiter

    def unregister(self, run_id, waiter: asyncio.Event) -> None:
        waiters = self.waiters.get(str(run_id))
        if waiters is not None:
            waiters.discard(waiter)
            if not waiters:
                self.waiters.pop(str(run_id), None)


hub = NotifyHub()


async def wait(waiter: asyncio.Event, timeout: float) -> bool:
    """Wait until woken or the timeout passes; return whether it was woken."""
    if timeout <= 0:
        return waiter.is_set()
    try:
        await asyncio.wait_for(waiter.wait(), timeout)
        return True
    except TimeoutError:
        return False
