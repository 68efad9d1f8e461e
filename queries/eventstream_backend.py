"""django-eventstream wired to the run event log.

The storage reads `RunEvent` (django-eventstream's own storage expires after a day, so it is
never the history), and the channel manager lets a user read `run-<uuid>` only if they may
see that run. Channel ids are the run's seqs, so an event's id is its `seq`.
"""

from __future__ import annotations

from django_eventstream.channelmanager import ChannelManagerBase
from django_eventstream.event import Event
from django_eventstream.storage import StorageBase

from queries.models import QueryRun

CHANNEL_PREFIX = "run-"


def channel_for(run_id) -> str:
    return f"{CHANNEL_PREFIX}{run_id}"


def run_id_of(channel: str) -> str:
    if not channel.startswith(CHANNEL_PREFIX):
        raise ValueError(f"not a run channel: {channel!r}")
    return channel[len(CHANNEL_PREFIX) :]


class RunEventStorage(StorageBase):
    """Serve a run channel's events from the run's event log."""

    def append_event(self, channel, event_type, data):
        import json

        from queries.eventlog import run_event_append

        payload = json.loads(data) if isinstance(data, str) else data
        seq = run_event_append(run_id=run_id_of(channel), event_type=event_type, data=payload)
        return Event(channel, event_type, data, id=seq)

    def get_events(self, channel, last_id, limit=100):
        from queries.eventlog import run_events_after

        events = run_events_after(run_id=run_id_of(channel), after=int(last_id), limit=limit)
        # The event's data is the whole frame, as the POST stream sends it.
        return [Event(channel, event.type, event.payload, id=event.seq) for event in events]

    def get_current_id(self, channel):
        return (
            QueryRun.objects.filter(id=run_id_of(channel))
            .values_list("last_seq", flat=True)
            .first()
            or 0
        )


class RunChannelManager(ChannelManagerBase):
    """One channel per run; only the run's owner and staff may read it."""

    def get_channels_for_request(self, request, view_kwargs):
        return {channel_for(view_kwargs["run_id"])}

    def can_read_channel(self, user, channel):
        from queries.selectors import run_can_read

        try:
            run_id = run_id_of(channel)
        except ValueError:
            return False
        return user is not None and run_can_read(run_id=run_id, user=user)

    def is_channel_reliable(self, channel):
        return True
