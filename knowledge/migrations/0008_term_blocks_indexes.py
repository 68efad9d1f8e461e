# The indexes term blocks read through: postings in chunk order within a term and KB (the
# postings after a KB's watermark are one range), and a KB's chunks by id. Not atomic: each
# new index is built concurrently before the old one goes, so reads always have one.

from django.contrib.postgres.operations import AddIndexConcurrently, RemoveIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("knowledge", "0007_term_blocks"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="posting",
            index=models.Index(
                fields=["term", "knowledge_base", "chunk"],
                include=("tf", "chunk_length"),
                name="posting_term_kb_chunk",
            ),
        ),
        RemoveIndexConcurrently(
            model_name="posting",
            name="posting_term_kb",
        ),
        AddIndexConcurrently(
            model_name="chunk",
            index=models.Index(fields=["knowledge_base", "id"], name="chunk_kb_id"),
        ),
        RemoveIndexConcurrently(
            model_name="chunk",
            name="knowledge_c_knowled_8ce530_idx",
        ),
    ]
