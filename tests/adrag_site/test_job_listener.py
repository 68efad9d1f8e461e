"""The workers' job listener: handed to `manage.py procrastinate worker`, it waits out a
database away and lets any other fault through (the real outage is rehearsed in
tests/queries/test_multinode.py)."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from procrastinate.exceptions import ConnectorException
from procrastinate.psycopg_connector import PsycopgConnector

from adrag_site import jobs


def test_the_worker_command_gets_the_connector_whose_listener_waits():
    # The management command swaps in app.connector.get_worker_connector() for a DjangoConnector.
    from procrastinate.contrib.django import app
    from procrastinate.contrib.django.django_connector import DjangoConnector

    assert isinstance(app.connector, DjangoConnector)
    assert isinstance(app.connector.get_worker_connector(), jobs.ListenerRetryingConnector)


def _failing(cause: Exception, times: int):
    """A listener that fails `times` times with `cause`, then stops (as a cancelled one)."""
    failures = []

    async def listen_notify(self, on_notification, channels):
        if len(failures) < times:
            failures.append(cause)
            raise ConnectorException() from cause
        raise asyncio.CancelledError

    return listen_notify, failures


def test_the_listener_listens_again_while_the_database_is_away(monkeypatch):
    listen, failures = _failing(psycopg.OperationalError("the database system is starting up"), 3)
    monkeypatch.setattr(PsycopgConnector, "listen_notify", listen)
    monkeypatch.setattr(jobs, "LISTEN_RETRY_FIRST_SECONDS", 0.01)
    connector = jobs.ListenerRetryingConnector(conninfo="")
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(connector.listen_notify(None, ["queue"]))
    assert len(failures) == 3


def test_a_fault_other_than_the_database_away_is_not_retried(monkeypatch):
    listen, failures = _failing(psycopg.ProgrammingError("permission denied"), 3)
    monkeypatch.setattr(PsycopgConnector, "listen_notify", listen)
    connector = jobs.ListenerRetryingConnector(conninfo="")
    with pytest.raises(ConnectorException):
        asyncio.run(connector.listen_notify(None, ["queue"]))
    assert len(failures) == 1
