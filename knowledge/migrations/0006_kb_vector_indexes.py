# One HNSW index per large knowledge base instead of one over every KB's chunks
# (knowledge/vector_index.py). Not atomic: the indexes are built concurrently.

from django.conf import settings
from django.db import migrations


def build_kb_indexes(apps, schema_editor):
    # Large KBs get their own index before the shared one goes, so none is searched exactly
    # for lack of one.
    from knowledge.vector_index import build_index

    KnowledgeBase = apps.get_model("knowledge", "KnowledgeBase")
    alias = schema_editor.connection.alias
    large = KnowledgeBase.objects.using(alias).filter(
        chunk_count__gte=settings.VECTOR_INDEX_MIN_CHUNKS
    )
    for kb_id in large.values_list("id", flat=True):
        build_index(kb_id, using=alias)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("knowledge", "0005_term_stats"),
    ]

    operations = [
        migrations.RunPython(build_kb_indexes, migrations.RunPython.noop),
        migrations.RemoveIndex(
            model_name="chunk",
            name="chunk_embedding_hnsw",
        ),
    ]
