"""The spec's two reference clients (seeds/000 §3.2 and §3.3), reproduced for tests."""

from __future__ import annotations

import codecs
import json

import requests


def js_reader_frames(response: requests.Response, stop_after=None) -> tuple[list[dict], list[str]]:
    """Parse like ragApi.js: carry the partial line across chunks, keep `data: ` lines only."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    buffer = ""
    frames, raw = [], []
    for chunk in response.iter_content(chunk_size=None):
        buffer += decoder.decode(chunk)
        lines = buffer.split("\n")
        buffer = lines.pop()
        for line in lines:
            if not line.startswith("data: "):
                continue
            raw.append(line[6:])
            frames.append(json.loads(line[6:]))
            if stop_after and stop_after(frames):
                return frames, raw
    return frames, raw


def python_reader_frames(response: requests.Response) -> list[dict]:
    """Parse like the spec's Python client: iter_lines, skip anything but `data: ` lines."""
    frames = []
    for line in response.iter_lines(decode_unicode=True):
        if not line or not line.startswith("data: "):
            continue
        frames.append(json.loads(line[6:]))
    return frames


def sse_events(response: requests.Response, stop_after=None) -> list[dict]:
    """Parse a full SSE stream into events with their id, event and data fields, and comments."""
    events, current = [], {}
    for line in response.iter_lines(decode_unicode=True):
        if line == "":
            if current:
                events.append(current)
                if stop_after and stop_after(events):
                    return events
            current = {}
            continue
        if line.startswith(":"):
            events.append({"comment": line[1:].strip()})
            continue
        field, _, value = line.partition(": ")
        current[field] = value
    if current:
        events.append(current)
    return events
