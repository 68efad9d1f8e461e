"""How much of a grammar-constrained token the grammar costs, and what asking it first saves.

    .venv/bin/python bench/grammar_sampling.py [--model PATH] [--threads N] [--tokens N]

Loads the GGUF model twice, as llama-cpp-python's `Llama` (the response format's grammar runs
over the whole vocabulary for every token) and as the local provider loads it
(`providers/llm/sampling.py`: the grammar is asked about the greedy pick first), and has each
write, greedily, the plan, the answer and the verdict of a few questions under the pipeline's
own schemas (`queries/answering/schemas.py`, bounded as the provider bounds them). It prints
the time per generated token of each, how often the grammar refused the pick, and whether
every output is the same (under greedy sampling it must be).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "adrag_site.settings")

QUESTIONS = (
    "Who led the design of the Eiffel Tower?",
    "Which offices opened after 2015, and who leads them?",
    "Summarise what the sources say about the budget, in detail.",
)
CONTEXT = (
    "[1] eiffel.txt\nThe Eiffel Tower is a wrought-iron lattice tower in Paris. It was designed "
    "by the engineering firm of Gustave Eiffel. Its lead designer was Maurice Koechlin.\n"
    "[2] offices.csv\nOffice: Lisbon; Opened: 2017; Lead: Ana Reis. Office: Oslo; Opened: 2012."
)


def main() -> None:
    import django

    django.setup()
    from llama_cpp import Llama

    from providers.llm.grammar import bounded
    from providers.llm.local import model_path
    from providers.llm.sampling import grammar_first_llama
    from queries.answering import schemas

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="a GGUF file (the configured local model by default)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--tokens", type=int, default=96, help="output budget per call")
    args = parser.parse_args()
    path = Path(args.model) if args.model else model_path()
    if path is None or not path.is_file():
        sys.exit("no GGUF model: pass --model or run `manage.py fetch_model`")

    calls = [
        (stage, question, bounded(schema))
        for question in QUESTIONS
        for stage, (_, schema) in schemas.BY_STAGE.items()
    ]
    outputs: dict[str, list[str]] = {}
    for name, cls in (("grammar over every token", Llama), ("grammar asked first", None)):
        llm = (cls or grammar_first_llama())(
            model_path=str(path), n_ctx=4096, n_threads=args.threads, verbose=False
        )
        per_token, refused, picks = [], 0, 0
        for stage, question, schema in calls:
            messages = [
                {"role": "system", "content": f"You are the {stage} of a question-answering "
                 "pipeline. Reply in JSON."},
                {"role": "user", "content": f"Sources:\n{CONTEXT}\n\nQuestion: {question}"},
            ]  # fmt: skip
            llm.create_chat_completion(messages=messages, max_tokens=1)  # the prompt, read
            started, text, chunks = time.perf_counter(), "", 0
            for chunk in llm.create_chat_completion(
                messages=messages,
                temperature=0.0,
                max_tokens=args.tokens,
                stream=True,
                response_format={"type": "json_object", "schema": schema},
            ):
                text += chunk["choices"][0]["delta"].get("content") or ""
                chunks += 1
            per_token.append((time.perf_counter() - started) / max(chunks, 1))
            outputs.setdefault(f"{stage}: {question}", []).append(text)
            sampler = getattr(llm, "last_sampler", None)
            if sampler is not None:
                picks, refused = picks + sampler.picks, refused + sampler.refused
        llm.close()
        line = f"{name:26} median {statistics.median(per_token) * 1000:6.1f} ms per token"
        if picks:
            line += f"; the grammar refused {refused} of {picks} picks"
        print(line)
    same = sum(a == b for a, b in outputs.values())
    print(f"same output: {same} of {len(outputs)} calls ({path.name}, {args.threads} threads)")


if __name__ == "__main__":
    main()
