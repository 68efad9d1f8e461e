"""Finding the table a question is about, among many: WikiTableQuestions' dev fifth in one KB.

    .venv/bin/python bench/table_finding.py [--fit] [--held-out 300] [--fit-questions 900]

Every table of the training split's dev fifth (`training.part`: 340 tables the parser's ranker
never trained on) is ingested into one knowledge base (`wtq-dev-all`, as `bench/tables.py
--split dev --mode open` does, and reused). For each question the table store shortlists the
tables by their rows' votes, BM25's and the embedder's (`store.shortlisted`); printed is how often the question's
own table is first and among the TABLES_PER_QUESTION tried, ordered by votes and by the
fitted finding model (knowledge/tables/finding.py), on the held-out questions (the `--sample
300` of `bench/tables.py --split dev`, seed 7, so that its end-to-end figures are held out
too) and on the questions it is fitted on (drawn from the rest with seed 11).

`--fit` fits the model on those and writes `knowledge/tables/finding_weights.json`.
"""

from __future__ import annotations

import argparse

from _setup import setup


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--held-out", type=int, default=300)
    parser.add_argument("--fit-questions", type=int, default=900)
    args = parser.parse_args()
    setup()
    from django.conf import settings
    from tables import dev_fifth_in_one_kb

    from knowledge.models import Table
    from knowledge.tables import finding, store

    kb, to_fit, held_out, ids = dev_fifth_in_one_kb(args.held_out, args.fit_questions)
    searched = Table.objects.filter(knowledge_base=kb, row_count__lte=settings.TABLE_MAX_ROWS)
    grids: dict = {}
    measured = {}
    for name, questions in (("fitted on", to_fit), ("held out", held_out)):
        rows = []
        for item in questions:
            votes, shortlist_grids, by_votes = store.shortlisted(
                [kb.id], item["question"], None, searched, grids
            )
            gold = ids.get(item["table"])
            if len(shortlist_grids) < 2:
                rows.append((list(by_votes), None, gold))
                continue
            shortlist, matrix = store.finding_signals(
                [kb.id], item["question"], votes, shortlist_grids, by_votes
            )
            rows.append((list(by_votes), (shortlist, matrix), gold))
        measured[name] = rows
    if args.fit:
        examples = [
            (found[1], found[0].index(gold))
            for _, found, gold in measured["fitted on"]
            if found is not None and gold in found[0]
        ]
        finding.save(finding.fit(examples))
        print(f"fitted on {len(examples)} questions whose table was shortlisted; weights written")
    model = finding.load_finding()
    tried = store.TABLES_PER_QUESTION
    print(f"{'questions':<22}{'by votes: first / tried':<28}by the model: first / tried")
    for name, rows in measured.items():
        first = among = model_first = model_among = 0
        for by_votes, found, gold in rows:
            first += bool(by_votes) and by_votes[0] == gold
            among += gold in by_votes
            order = by_votes
            if found is not None and model is not None:
                order = list(finding.likeliest(*found, model, tried))
            model_first += bool(order) and order[0] == gold
            model_among += gold in order
        n = len(rows)
        print(
            f"{name + f' ({n})':<22}{first:>4} / {among:<4} ({first / n:.1%} / {among / n:.1%})"
            f"     {model_first:>4} / {model_among:<4} ({model_first / n:.1%} / "
            f"{model_among / n:.1%})"
        )


if __name__ == "__main__":
    main()
