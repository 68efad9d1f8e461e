# The index tables are shared by every knowledge base: at PostgreSQL's default (analyze after
# 10% of a table changed) a KB of 20,000 chunks added beside a million others stays out of the
# planner's statistics, which then take it for empty (knowledge/index.py analyze_index_tables).
# Analyze after 1% instead.

from django.db import migrations

TABLES = (
    "knowledge_chunk",
    "knowledge_posting",
    "knowledge_termstat",
    "knowledge_entity",
    "knowledge_chunkentity",
)


class Migration(migrations.Migration):
    dependencies = [
        ("knowledge", "0008_term_blocks_indexes"),
    ]

    operations = [
        migrations.RunSQL(
            [f"ALTER TABLE {table} SET (autovacuum_analyze_scale_factor = 0.01)" for table in TABLES],
            [f"ALTER TABLE {table} RESET (autovacuum_analyze_scale_factor)" for table in TABLES],
        ),
    ]
