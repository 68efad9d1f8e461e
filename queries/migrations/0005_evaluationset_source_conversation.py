from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("queries", "0004_evaluations"),
    ]

    operations = [
        migrations.AlterField(
            model_name="evaluationset",
            name="source",
            field=models.CharField(
                choices=[
                    ("upload", "Upload"),
                    ("feedback", "Feedback"),
                    ("conversation", "Conversation"),
                ],
                default="upload",
                max_length=16,
            ),
        ),
    ]
