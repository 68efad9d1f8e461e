"""Run the portal: daphne (ASGI) and a Procrastinate worker together, stopped together."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

FIRST_ADMIN_HELP = """
No user exists yet. Create the first administrator in another terminal:

    .venv/bin/python manage.py createsuperuser

or without prompts:

    DJANGO_SUPERUSER_USERNAME=admin DJANGO_SUPERUSER_EMAIL=admin@example.com \\
    DJANGO_SUPERUSER_PASSWORD='choose-a-password' .venv/bin/python manage.py createsuperuser --noinput

then sign in at http://{host}:{port}/accounts/login/ (the admin is at /admin/).
An API token for scripts: .venv/bin/python manage.py drf_create_token admin
"""


class Command(BaseCommand):
    help = "Start daphne and a Procrastinate worker; Ctrl-C stops both."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--workers", type=int, default=int(os.environ.get("WORKERS", "1")))
        parser.add_argument("--no-worker", action="store_true", help="Start only the web server.")

    def handle(self, *args, host: str, port: int, workers: int, no_worker: bool, **options):
        if not get_user_model().objects.exists():
            self.stdout.write(self.style.WARNING(FIRST_ADMIN_HELP.format(host=host, port=port)))
        from django.core.management import call_command

        call_command("collectstatic", interactive=False, verbosity=0)
        python = sys.executable
        manage = str(settings.BASE_DIR / "manage.py")
        commands = [
            [python, "-m", "daphne", "-b", host, "-p", str(port), "adrag_site.asgi:application"]
        ]
        if not no_worker:
            commands += [[python, manage, "procrastinate", "worker"] for _ in range(workers)]
        children = [subprocess.Popen(command) for command in commands]
        self.stdout.write(f"adRAG is running at http://{host}:{port}/  (Ctrl-C stops it)")

        stopping = False

        def stop(signum=None, frame=None):
            nonlocal stopping
            if stopping:
                return
            stopping = True
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        exit_code = 0
        try:
            while True:
                for child in children:
                    code = child.poll()
                    if code is not None and not stopping:
                        self.stderr.write(f"{child.args[2]} exited with {code}; stopping the rest")
                        exit_code = code or 1
                        stop()
                if all(child.poll() is not None for child in children):
                    break
                time.sleep(0.2)
        finally:
            deadline = time.monotonic() + 20
            for child in children:
                remaining = max(0.1, deadline - time.monotonic())
                try:
                    child.wait(remaining)
                except subprocess.TimeoutExpired:
                    child.kill()
        self.stdout.write("adRAG stopped.")
        sys.exit(exit_code)
