"""A page reached by several web sources of one knowledge base belongs to all of them: the
document's one `web_source` becomes `web_sources`, each page keeping the source it had."""

from django.db import migrations, models


def copy_sources(apps, schema_editor):
    Document = apps.get_model("knowledge", "Document")
    Through = Document.web_sources.through
    Through.objects.bulk_create(
        [
            Through(document_id=document_id, websource_id=source_id)
            for document_id, source_id in Document.objects.filter(
                legacy_web_source__isnull=False
            ).values_list("id", "legacy_web_source_id")
        ],
        batch_size=1000,
    )


def copy_back(apps, schema_editor):
    Document = apps.get_model("knowledge", "Document")
    Through = Document.web_sources.through
    for link in Through.objects.order_by("id"):
        Document.objects.filter(id=link.document_id).update(legacy_web_source_id=link.websource_id)


class Migration(migrations.Migration):
    dependencies = [
        ("knowledge", "0010_tables"),
    ]

    operations = [
        migrations.RenameField("document", "web_source", "legacy_web_source"),
        migrations.AlterField(
            model_name="document",
            name="legacy_web_source",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=models.SET_NULL,
                related_name="+",
                to="knowledge.websource",
            ),
        ),
        migrations.AddField(
            model_name="document",
            name="web_sources",
            field=models.ManyToManyField(
                blank=True, related_name="documents", to="knowledge.websource"
            ),
        ),
        migrations.RunPython(copy_sources, copy_back),
        migrations.RemoveField("document", "legacy_web_source"),
    ]
