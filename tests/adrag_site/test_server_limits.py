"""The web tier's edge, against a live web server: bodies over their cap are refused before
(or while) they are read, and requests the server cannot parse still get JSON."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import psutil
import pytest
import requests

from adrag_site.server import uvicorn_command
from tests.model_server import free_port
from tests.support import ROOT, child_env

pytestmark = pytest.mark.slow
CAP = 1024 * 1024  # MAX_BODY_BYTES for this server


@pytest.fixture(scope="module")
def web(django_db_setup, django_db_blocker, tmp_path_factory):
    port = free_port()
    log = tmp_path_factory.mktemp("web") / "web.log"
    with django_db_blocker.unblock():
        env = child_env(MAX_BODY_BYTES=str(CAP), MAX_UPLOAD_REQUEST_MB="2")
    process = subprocess.Popen(
        uvicorn_command(sys.executable, "127.0.0.1", port),
        cwd=ROOT,
        env=env,
        stdout=open(log, "wb"),
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            requests.get(url + "/api/health", timeout=2)
            break
        except requests.RequestException:
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline
            time.sleep(0.2)
    yield {"url": url, "port": port, "pid": process.pid}
    process.terminate()
    process.wait(15)


def raw_request(
    port: int, head: bytes, body_chunks=(), read_timeout: float = 10
) -> tuple[int, dict, bytes]:
    """Send raw bytes; return the status, headers and body of the response."""
    with socket.create_connection(("127.0.0.1", port), timeout=read_timeout) as sock:
        sock.sendall(head)
        try:
            for chunk in body_chunks:
                sock.sendall(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server refused the rest, as it should; its answer is already sent
        data = b""
        while b"\r\n\r\n" not in data or len(data.split(b"\r\n\r\n", 1)[1]) < _length(data):
            try:
                piece = sock.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not piece:
                break
            data += piece
    head_part, _, body = data.partition(b"\r\n\r\n")
    lines = head_part.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


def _length(data: bytes) -> int:
    for line in data.split(b"\r\n\r\n", 1)[0].split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return int(line.split(b":", 1)[1])
    return 1 << 62


def test_a_declared_body_over_the_cap_is_refused_before_it_is_sent(web):
    head = (
        b"POST /api/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 2147483648\r\n\r\n"
    )
    started = time.monotonic()
    status, headers, body = raw_request(web["port"], head)
    assert status == 413
    assert headers["content-type"] == "application/json"
    assert json.loads(body)["code"] == "payload_too_large"
    assert time.monotonic() - started < 5


def test_a_chunked_body_is_cut_off_at_the_cap_and_memory_stays_flat(web):
    rss_before = psutil.Process(web["pid"]).memory_info().rss
    head = (
        b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: multipart/form-data; boundary=xyz\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    piece = b"a" * 65536
    chunks = (b"%x\r\n%s\r\n" % (len(piece), piece) for _ in range(800))  # 50 MB if all sent
    status, headers, body = raw_request(web["port"], head, chunks)
    assert status == 413, body
    assert json.loads(body)["code"] == "payload_too_large"
    growth = psutil.Process(web["pid"]).memory_info().rss - rss_before
    assert growth < 50 * 1024 * 1024, growth


def test_an_upload_may_be_larger_than_other_bodies_but_not_than_its_own_cap(web):
    head = (
        b"POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=b\r\n"
        b"Content-Length: %d\r\n\r\n"
    )
    status, _, _ = raw_request(web["port"], head % (3 * 1024 * 1024))
    assert status == 413
    # Under the upload cap (2 MB here) the request reaches Django: 401 JSON without a token.
    body = (
        b'--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n'
        b"Content-Type: text/plain\r\n\r\n" + b"a" * (1536 * 1024) + b"\r\n--b--\r\n"
    )
    status, headers, answer = raw_request(web["port"], head % len(body), [body])
    assert status == 401 and headers["content-type"] == "application/json", answer


@pytest.mark.parametrize(
    "head",
    [
        b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nLast-Event-ID: a\x00b\r\n\r\n",
        b"GET /api/" + b"a" * 20000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        b"POST /api/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1e12\r\n\r\n",
        b"GARBAGE\r\n\r\n",
    ],
    ids=["nul-in-header", "request-line-over-16kb", "content-length-1e12", "not-http"],
)
def test_requests_the_server_cannot_parse_or_refuses_get_json(web, head):
    status, headers, body = raw_request(web["port"], head)
    assert 400 <= status < 500
    assert headers["content-type"] == "application/json"
    assert json.loads(body)["code"] in ("bad_request", "not_authenticated")


def test_malformed_multipart_reaches_django_which_answers_without_an_error(web):
    body = b"--b\r\nContent-Disposition: form-data; name=\r\n\r\nno end"
    head = (
        b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n" % len(body)
    )
    status, headers, answer = raw_request(web["port"], head, [body])
    # The server parses no form; Django does, and a portal page answers with a page (the
    # login form again, refused by CSRF), never a bare server error.
    assert status in (200, 400, 403), answer
    assert headers["content-type"].startswith("text/html")


def test_a_forged_forwarded_for_neither_moves_the_client_nor_lifts_a_lockout(
    web, django_db_blocker
):
    from axes.models import AccessAttempt
    from django.contrib.auth.models import User

    from adrag_site.models import AuditEvent

    assert "--no-proxy-headers" in uvicorn_command(sys.executable, "127.0.0.1", web["port"])
    with django_db_blocker.unblock():
        User.objects.create_user("forger", password="forger-pass-123")
    try:
        session = requests.Session()
        login = web["url"] + "/accounts/login/"
        session.get(login, timeout=10)
        statuses = []
        for n in range(8):
            response = session.post(
                login,
                data={
                    "username": "forger",
                    "password": "wrong-password",
                    "csrfmiddlewaretoken": session.cookies["csrftoken"],
                },
                headers={"X-Forwarded-For": f"203.0.113.{n + 1}"},
                allow_redirects=False,
                timeout=10,
            )
            statuses.append(response.status_code)
        assert statuses == [200] * 4 + [429] * 4
        with django_db_blocker.unblock():
            # Counted against the address the server saw, not the ones the client claimed.
            assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"127.0.0.1"}
    finally:
        with django_db_blocker.unblock():
            AccessAttempt.objects.filter(username="forger").delete()
            # The server's audit trail of the failed sign-ins: committed outside any test's
            # transaction, a later test of this process would find it in the trail.
            AuditEvent.objects.filter(actor_name="forger").delete()
            User.objects.filter(username="forger").delete()


def test_proxies_named_in_forwarded_allow_ips_are_trusted():
    command = uvicorn_command("python", "0.0.0.0", 8000, forwarded_allow_ips="10.0.0.5")
    assert command[-3:] == ["--proxy-headers", "--forwarded-allow-ips", "10.0.0.5"]
    assert "--no-proxy-headers" not in command
