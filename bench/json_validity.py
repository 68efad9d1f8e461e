"""How often a model's replies to the three JSON stages parse, with and without their schema.

    .venv/bin/python bench/json_validity.py --provider local [--model-path FILE] [--limit 50]
    OPENAI_BASE_URL=http://127.0.0.1:8080/v1 .venv/bin/python bench/json_validity.py --provider openai

For each of `--limit` XQuAD-en questions (spread over the articles), the planner, answer and
reflection calls are made exactly as the pipeline makes them, in three modes: `schema` (the
stage's JSON schema, as a grammar or `response_format`), `json_object` (any JSON), and `none`
(the prompt alone). A reply counts as parsed when the provider returns the stage's object
(the pipeline's own parser and key check); otherwise the pipeline would take its fallback.
The context is the gold paragraph and two paragraphs of other articles, as numbered blocks.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from _setup import EVAL_DATA, setup

MODES = ("schema", "json_object", "none")
STAGES = ("planner", "reasoning", "reflection")
OPENAI_SETTING = {"schema": "auto", "json_object": "json_object", "none": "none"}


def questions(limit: int) -> list[dict]:
    data = json.loads((EVAL_DATA / "xquad-en" / "xquad.en.json").read_text())
    paragraphs = []
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            paragraphs.append((article["title"], paragraph))
    every = []
    for position, (title, paragraph) in enumerate(paragraphs):
        for qa in paragraph["qas"][:1]:
            every.append((position, title, paragraph["context"], qa))
    step = max(len(every) // limit, 1)
    chosen = []
    for n, (position, title, context, qa) in enumerate(every[::step][:limit]):
        others = [
            p["context"]
            for t, p in (paragraphs[(position + 37 * k) % len(paragraphs)] for k in (1, 2))
            if t != title
        ][:2]
        blocks = [context, *others]
        gold_at = n % len(blocks)
        blocks.insert(gold_at, blocks.pop(0))
        chosen.append(
            {
                "question": qa["question"],
                "answers": [a["text"] for a in qa["answers"]],
                "blocks": blocks,
                "gold": gold_at + 1,
            }
        )
    return chosen


def call_stage(provider, stage, item, context, blocks, candidate, ctx):
    """Make the stage's call as the pipeline makes it."""
    from queries.answering.frame import frame_question

    question = frame_question(item["question"])
    if stage == "planner":
        return provider.plan(question, ctx)
    if stage == "reasoning":
        return provider.answer(question, context, blocks, ctx)
    return provider.critique(question, context, candidate, blocks, ctx)


def make_provider(name: str, mode: str, model_path: str | None):
    from django.conf import settings

    from providers.llm.registry import get_backend
    from queries.answering.model import ModelStrategy

    if name == "openai":
        settings.OPENAI_STRUCTURED_OUTPUT = OPENAI_SETTING[mode]
    # The JSON stages are the model strategy's, whatever strategy the provider answers with.
    backend = get_backend(name)
    backend.json_format = mode
    provider = ModelStrategy(name, backend)
    if model_path:
        settings.LOCAL_MODEL_PATH = model_path
    return provider


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--provider", default="local")
    parser.add_argument("--model", default=None, help="the model name sent to the provider")
    parser.add_argument("--model-path", default=None, help="a GGUF file for the local provider")
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--modes", default=",".join(MODES))
    args = parser.parse_args()
    setup()
    from providers.llm.base import CallContext, ProviderError
    from queries.answering.types import SourceBlock

    items = questions(args.limit)
    modes = [m for m in args.modes.split(",") if m in MODES]
    parsed = {(m, s): 0 for m in modes for s in STAGES}
    seconds = {(m, s): [] for m in modes for s in STAGES}
    tokens = {(m, s): [] for m in modes for s in STAGES}
    timeouts = {(m, s): 0 for m in modes for s in STAGES}
    contains = dict.fromkeys(modes, 0)
    for mode in modes:
        provider = make_provider(args.provider, mode, args.model_path)
        for n, item in enumerate(items, start=1):
            blocks = [
                SourceBlock(index=i, file_name=f"paragraph-{i}.txt", text=text)
                for i, text in enumerate(item["blocks"], start=1)
            ]
            context = "\n\n".join(f"[{b.index}] {b.file_name}\n{b.text}" for b in blocks)
            candidate = f"{item['answers'][0]} [{item['gold']}]."
            for stage in STAGES:
                ctx = CallContext(model=args.model)
                started = time.perf_counter()
                try:
                    result = call_stage(provider, stage, item, context, blocks, candidate, ctx)
                    parsed[(mode, stage)] += 1
                    if stage == "reasoning":
                        answer = str(result.get("answer", "")).lower()
                        contains[mode] += any(a.lower() in answer for a in item["answers"])
                except ProviderError as exc:
                    # A reply that does not parse, or one that ran out of time, sends the
                    # pipeline down its fallback: both count as not parsed.
                    if exc.code not in ("invalid_json", "timeout"):
                        raise
                    timeouts[(mode, stage)] += exc.code == "timeout"
                seconds[(mode, stage)].append(time.perf_counter() - started)
                usage = ctx.usage.get(stage)
                tokens[(mode, stage)].append(usage.output_tokens if usage else 0)
            if n % 10 == 0:
                parts = ", ".join(f"{stage} {parsed[(mode, stage)] / n:.0%}" for stage in STAGES)
                print(
                    f"  {mode}: {n} questions: parsed {parts}; "
                    f"answer holds a gold span {contains[mode] / n:.0%}",
                    flush=True,
                )
    total = len(items)
    print(
        f"provider {args.provider}, model {args.model or args.model_path or 'default'}, {total} questions"
    )
    print(
        f"{'mode':<13}{'stage':<12}{'parsed':>8}{'median s':>10}{'mean out tok':>14}{'timed out':>11}"
    )
    for mode in modes:
        for stage in STAGES:
            key = (mode, stage)
            print(
                f"{mode:<13}{stage:<12}{parsed[key] / total:>8.0%}"
                f"{statistics.median(seconds[key]):>10.2f}{statistics.mean(tokens[key]):>14.1f}"
                f"{timeouts[key]:>11}"
            )
        print(f"{mode:<13}{'answer holds a gold span':<26}{contains[mode] / total:>8.0%}")


if __name__ == "__main__":
    main()
