# Per-KB term statistics for BM25, counted from the postings; vectors kept in the row.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("knowledge", "0004_document_ocr_pages"),
    ]

    operations = [
        migrations.CreateModel(
            name="TermStat",
            fields=[
                (
                    "pk",
                    models.CompositePrimaryKey(
                        "knowledge_base_id",
                        "term",
                        blank=True,
                        editable=False,
                        primary_key=True,
                        serialize=False,
                    ),
                ),
                (
                    "knowledge_base",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="knowledge.knowledgebase",
                    ),
                ),
                ("term", models.CharField(max_length=100)),
                ("df", models.PositiveIntegerField()),
                ("max_impact", models.FloatField()),
                ("impact_avgdl", models.FloatField()),
            ],
        ),
        migrations.RunSQL(
            # knowledge.index.TERM_STATS_FROM_POSTINGS as of this migration, over every KB.
            "INSERT INTO knowledge_termstat "
            "(knowledge_base_id, term, df, max_impact, impact_avgdl) "
            "SELECT p.knowledge_base_id, p.term, count(*), "
            "max(p.tf * 2.5 / (p.tf + 1.5 * (0.25 + 0.75 * p.chunk_length / s.avgdl))), "
            "s.avgdl FROM knowledge_posting p JOIN "
            "(SELECT id, token_total::float8 / chunk_count AS avgdl "
            "FROM knowledge_knowledgebase WHERE chunk_count > 0 AND token_total > 0) s "
            "ON s.id = p.knowledge_base_id GROUP BY p.knowledge_base_id, p.term, s.avgdl",
            migrations.RunSQL.noop,
        ),
        migrations.RunSQL(
            # Vectors stay in the row (compressed if need be) rather than in TOAST: an exact
            # search reads thousands of them, and a TOAST read each was most of its time.
            "ALTER TABLE knowledge_chunk ALTER COLUMN embedding SET STORAGE MAIN",
            "ALTER TABLE knowledge_chunk ALTER COLUMN embedding SET STORAGE EXTERNAL",
        ),
    ]
