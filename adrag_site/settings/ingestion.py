"""What comes in: uploads and their extraction, web sources; and how long the audit trail keeps
its events."""

from __future__ import annotations

from adrag_site.env import env_bool, env_float, env_int, env_list

# --- Uploads and ingestion --------------------------------------------------------------------
# Uploads stream to temporary files rather than memory; the per-file limit is MAX_UPLOAD_MB.
MAX_UPLOAD_MB = env_int("MAX_UPLOAD_MB", 50)
# The web tier's caps on request bodies, enforced before Django reads them (adrag_site/server.py):
# uploads may carry several files up to MAX_UPLOAD_REQUEST_MB in all; any other body (JSON,
# forms) at most MAX_BODY_BYTES. Over a cap: 413 JSON, without reading the rest.
MAX_UPLOAD_REQUEST_MB = env_int("MAX_UPLOAD_REQUEST_MB", 100)
MAX_BODY_BYTES = env_int("MAX_BODY_BYTES", 5 * 1024 * 1024)
# Light checks an upload passes in the request (knowledge/ingest/inspect.py).
MAX_PDF_PAGES = env_int("MAX_PDF_PAGES", 2000)
MAX_DOCX_UNCOMPRESSED_MB = env_int("MAX_DOCX_UNCOMPRESSED_MB", 40)
# The worker extracts each file in a child process under these budgets (knowledge/ingest/sandbox.py).
EXTRACT_TIMEOUT_SECONDS = env_float("EXTRACT_TIMEOUT_SECONDS", 120.0)
EXTRACT_MEMORY_MB = env_int("EXTRACT_MEMORY_MB", 1024)
# OCR (knowledge/ingest/ocr.py, RapidOCR with the models its wheel carries) reads images and the
# pages of a PDF without a text layer. A page may take OCR_PAGE_SECONDS (then it is reported
# as unreadable and the others go on); each page read adds that to the file's wall-clock budget;
# pages past OCR_MAX_PAGES are not read. The engine needs more memory than parsing: a file
# that needs OCR may grow to OCR_MEMORY_MB of address space. OCR_ENABLED=false refuses images.
OCR_ENABLED = env_bool("OCR_ENABLED", True)
OCR_PAGE_SECONDS = env_float("OCR_PAGE_SECONDS", 30.0)
OCR_MAX_PAGES = env_int("OCR_MAX_PAGES", 200)
OCR_MEMORY_MB = env_int("OCR_MEMORY_MB", 2048)
# Per-user ingestion limits: documents queued or in progress, and stored bytes per owner
# (the KB's team when it has one, else its owner); 0 means no limit. Over either: 429 / 413.
INGESTIONS_MAX_PENDING_PER_USER = env_int("INGESTIONS_MAX_PENDING_PER_USER", 50)
STORAGE_QUOTA_MB = env_int("STORAGE_QUOTA_MB", 5120)
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024


# --- Web sources and the audit trail ----------------------------------------------------------
# Web sources (knowledge/web_sources.py): hosts or networks that may be fetched although they
# are private (an intranet), the size cap of one page, and the timeout of one request.
WEB_SOURCES_ALLOWED_HOSTS = env_list("WEB_SOURCES_ALLOWED_HOSTS", [])
WEB_PAGE_MAX_BYTES = env_int("WEB_PAGE_MAX_BYTES", 2 * 1024 * 1024)
WEB_FETCH_TIMEOUT_SECONDS = env_float("WEB_FETCH_TIMEOUT_SECONDS", 10.0)
WEB_SYNC_MAX_SECONDS = env_int("WEB_SYNC_MAX_SECONDS", 900)
# How long the audit trail keeps its events (adrag_site/audit.py); purged daily.
AUDIT_RETENTION_DAYS = env_int("AUDIT_RETENTION_DAYS", 365)
