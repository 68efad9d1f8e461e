"""A protocol-level stand-in for an Ollama server: no real one can run here.

It speaks `/api/chat` as Ollama does (streaming NDJSON, one JSON object per line, the last
with `done: true` and the token counts) and `/api/tags`, records every request body, and
notices when the client goes away: a write to a closed connection fails, and it stops
"generating" at that moment, as Ollama does.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeOllama:
    """Serve scripted replies; `token_delay` paces the stream like a slow model."""

    def __init__(self, replies: list[str] | None = None, token_delay: float = 0.0) -> None:
        self.replies = list(replies or [])
        self.token_delay = token_delay
        self.requests: list[dict] = []
        self.tokens_sent = 0
        self.disconnected_at: float | None = None
        self.finished = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                if self.path != "/api/tags":
                    self.send_error(404)
                    return
                body = json.dumps({"models": [{"name": "llama3.2"}, {"name": "qwen2"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(body)
                reply = fake.replies.pop(0) if fake.replies else "{}"
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                tokens = [reply[i : i + 3] for i in range(0, len(reply), 3)]
                try:
                    for token in tokens:
                        if fake.token_delay:
                            time.sleep(fake.token_delay)
                        self._line(
                            {
                                "model": body.get("model"),
                                "message": {"role": "assistant", "content": token},
                                "done": False,
                            }
                        )
                        fake.tokens_sent += 1
                    self._line(
                        {
                            "model": body.get("model"),
                            "message": {"role": "assistant", "content": ""},
                            "done": True,
                            "done_reason": "stop",
                            "prompt_eval_count": 42,
                            "eval_count": len(tokens),
                        }
                    )
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    fake.disconnected_at = time.monotonic()
                finally:
                    fake.finished.set()

            def _line(self, payload: dict) -> None:
                data = json.dumps(payload).encode() + b"\n"
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeOllama:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
