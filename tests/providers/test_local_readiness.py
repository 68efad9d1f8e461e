"""The local model loaded at a run worker's start, and what /api/health says of it."""

from __future__ import annotations

import datetime
import threading

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("default_provider", "configured", "wanted"),
    [
        ("local", "auto", True),
        ("", "auto", False),
        ("openai", "true", True),
        ("local", "false", False),
    ],
)
def test_run_workers_warm_the_local_model_up_when_it_is_the_default(
    settings, default_provider, configured, wanted
):
    from providers import local_readiness

    settings.DEFAULT_PROVIDER, settings.LOCAL_WARM_UP = default_provider, configured
    assert local_readiness.wanted() is wanted


@pytest.mark.parametrize(
    ("argv", "queues"),
    [
        (["manage.py", "procrastinate", "worker", "--queues", "runs,default"], ["runs", "default"]),
        (["manage.py", "procrastinate", "worker", "--queues=ingest"], ["ingest"]),
        (["manage.py", "procrastinate", "worker"], []),
    ],
)
def test_a_worker_knows_its_queues(monkeypatch, argv, queues):
    from adrag_site import jobs

    monkeypatch.setattr("sys.argv", argv)
    assert jobs.worker_queues() == queues


@pytest.fixture
def warm_ups(monkeypatch) -> list[str]:
    """The names of the warm-up threads started, none of which runs (nothing is loaded)."""
    started: list[str] = []

    class NotStarted:
        def __init__(self, *, name, **_) -> None:
            self.name = name

        def start(self) -> None:
            started.append(self.name)

    monkeypatch.setattr(threading, "Thread", NotStarted)
    return started


@pytest.mark.parametrize(
    ("queues", "loaded"),
    [
        ("runs,default", ["embedder", "pipeline", "language"]),
        ("ingest", ["embedder"]),
        ("default", []),
        (None, ["embedder", "pipeline", "language"]),
    ],
)
def test_a_worker_warms_up_only_what_its_queues_use(
    monkeypatch, settings, warm_ups, queues, loaded
):
    """An ingest worker loads the embedder but not LangGraph or spaCy; a worker naming no queue
    takes every queue, and warms everything up; a web process (no worker) nothing."""
    from django.apps import apps

    settings.LOCAL_WARM_UP = "false"  # the local model's warm-up has its own test below
    argv = ["manage.py", "procrastinate", "worker"] + (["--queues", queues] if queues else [])
    monkeypatch.setattr("sys.argv", argv)
    started = warm_ups
    for config in ("providers", "queries"):
        apps.get_app_config(config).ready()
    assert [name.removeprefix("warm-up-") for name in started] == loaded
    monkeypatch.setattr("sys.argv", ["manage.py", "runserver"])
    started.clear()
    for config in ("providers", "queries"):
        apps.get_app_config(config).ready()
    assert started == []


@pytest.mark.parametrize(
    ("argv", "warms"),
    [
        (["manage.py", "procrastinate", "worker", "--queues", "runs,default"], True),
        (["manage.py", "procrastinate", "worker", "--queues", "ingest"], False),
        (["manage.py", "procrastinate", "worker"], True),  # every queue, runs among them
        (["manage.py", "procrastinate", "worker", "--one-shot"], False),
        (["manage.py", "runserver"], False),
    ],
)
def test_the_local_model_warms_up_in_workers_that_take_runs(
    monkeypatch, settings, warm_ups, argv, warms
):
    from providers import local_readiness

    settings.LOCAL_WARM_UP = "true"
    monkeypatch.setattr("sys.argv", argv)
    local_readiness.start_in_worker(system="You answer.")
    assert warm_ups == (["warm-up-local-model"] if warms else [])


def test_health_reports_each_live_worker_s_local_model(client, settings):
    from django.utils import timezone

    from providers.models import LocalModelState

    settings.DEFAULT_PROVIDER, settings.LOCAL_WARM_UP = "local", "auto"
    assert client.get("/api/health").json()["local_model"] == {
        "warm_up": True, "default_provider": "local", "workers": [], "ready": False
    }  # fmt: skip
    LocalModelState.objects.create(worker="a:1", model="m.gguf", state="loading")
    assert client.get("/api/health").json()["local_model"]["ready"] is False
    LocalModelState.objects.create(worker="b:2", model="m.gguf", state="ready", seconds=4.2)
    # A worker that stopped reporting (gone for longer than WORKER_SEEN_SECONDS) is left out.
    gone = LocalModelState.objects.create(worker="c:3", model="m.gguf", state="ready")
    stale = timezone.now() - datetime.timedelta(seconds=settings.WORKER_SEEN_SECONDS + 5)
    LocalModelState.objects.filter(pk=gone.pk).update(updated_at=stale)
    report = client.get("/api/health").json()["local_model"]
    assert report["ready"] is True
    assert [(w["worker"], w["state"], w["seconds"]) for w in report["workers"]] == [
        ("a:1", "loading", None),
        ("b:2", "ready", 4.2),
    ]
    settings.DEFAULT_PROVIDER = ""
    assert client.get("/api/health").json()["local_model"] == {
        "warm_up": False, "default_provider": ""
    }  # fmt: skip


def test_a_worker_reports_its_model_ready_after_loading_it(settings, gguf_model, monkeypatch):
    from providers import local_readiness
    from providers.models import LocalModelState

    settings.LOCAL_MODEL_PATH = str(gguf_model)
    settings.WORKER_SEEN_SECONDS = 3
    stop = RuntimeError("the refresh loop, stopped by the test")

    def sleep(seconds):
        raise stop

    monkeypatch.setattr(local_readiness.time, "sleep", sleep)
    with pytest.raises(RuntimeError):
        local_readiness._warm_up_and_report("You answer questions.")
    row = LocalModelState.objects.get(worker=local_readiness.worker_id())
    assert (row.model, row.state, row.error) == (gguf_model.name, "ready", "")
    assert row.seconds is not None
