from django.db import migrations, models

FIELDS = [
    (
        "id",
        models.BigAutoField(
            auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
        ),
    ),
    ("worker", models.CharField(help_text="host:pid", max_length=200, unique=True)),
    ("queues", models.CharField(help_text="comma-separated; empty: every queue", max_length=300)),
    ("started_at", models.DateTimeField()),
    ("seen_at", models.DateTimeField(db_index=True)),
]


class Migration(migrations.Migration):
    dependencies = [
        ("adrag_site", "0001_vector_extension"),
    ]

    # The table is made here; the model is unmanaged (WorkerPresence's docstring says why).
    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.CreateModel(
                    name="WorkerPresence",
                    fields=FIELDS,
                    options={"db_table": "adrag_site_workerpresence"},
                ),
            ],
            state_operations=[
                migrations.CreateModel(
                    name="WorkerPresence",
                    fields=FIELDS,
                    options={
                        "verbose_name": "worker",
                        "ordering": ["worker"],
                        "managed": False,
                        "db_table": "adrag_site_workerpresence",
                    },
                ),
            ],
        ),
    ]
