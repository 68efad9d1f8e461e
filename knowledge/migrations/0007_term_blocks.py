# Term blocks: a large KB's postings as one row of arrays per term (knowledge/term_blocks.py).

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("knowledge", "0006_kb_vector_indexes"),
    ]

    operations = [
        migrations.CreateModel(
            name="TermBlock",
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
                        db_index=False,
                        to="knowledge.knowledgebase",
                    ),
                ),
                ("term", models.CharField(max_length=100)),
                ("df", models.PositiveIntegerField()),
                ("chunk_ids", models.BinaryField()),
                ("tfs", models.BinaryField()),
                ("lengths", models.BinaryField()),
            ],
        ),
        migrations.CreateModel(
            name="TermBlockSet",
            fields=[
                (
                    "knowledge_base",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="knowledge.knowledgebase",
                    ),
                ),
                ("watermark", models.BigIntegerField()),
                ("chunk_count", models.PositiveIntegerField()),
                ("built_at", models.DateTimeField()),
                ("build_seconds", models.FloatField(default=0.0)),
            ],
        ),
        # Read whole, often, and barely compressible: kept out of line and uncompressed.
        migrations.RunSQL(
            "ALTER TABLE knowledge_termblock ALTER COLUMN chunk_ids SET STORAGE EXTERNAL, "
            "ALTER COLUMN tfs SET STORAGE EXTERNAL, ALTER COLUMN lengths SET STORAGE EXTERNAL",
            migrations.RunSQL.noop,
        ),
    ]
