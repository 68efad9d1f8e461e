"""Django system checks of how providers answer (`manage.py check`, and every process start).

A strategy name that is not one of STRATEGIES fails at start instead of at the first run of that
provider; a variable an earlier version read (the LOCAL_* answering switches, OPENAI_SMALL_MODEL)
is reported with what replaced it, so that an upgraded deployment is not silently changed.
"""

from __future__ import annotations

import os

from django.conf import settings
from django.core.checks import Error, Warning, register

from queries.answering.registry import STRATEGIES

# What each removed variable did is now chosen by ANSWER_STRATEGIES.
REMOVED_SETTINGS = {
    "OPENAI_SMALL_MODEL": 'ANSWER_STRATEGIES="openai=quote_first" puts a small model behind quotes',
    "LOCAL_ANSWER_FIRST": 'ANSWER_STRATEGIES="local=quote_first" (the default) or "local=model"',
    "LOCAL_RETRY": 'ANSWER_STRATEGIES="local=quote_first" (the default) or "local=model"',
    "LOCAL_ANSWER_FORMAT": 'ANSWER_STRATEGIES="local=quote_first" (the default) or "local=model"',
    "LOCAL_RULES_PLANNER": 'ANSWER_STRATEGIES="local=quote_first" (the default) or "local=model"',
    "LOCAL_MODEL_CRITIC": 'ANSWER_STRATEGIES="local=model" has the model judge its answers',
}


@register()
def answer_strategies(app_configs, **kwargs) -> list:
    problems: list = []
    for provider, strategy in sorted(settings.ANSWER_STRATEGIES.items()):
        if strategy not in STRATEGIES:
            problems.append(
                Error(
                    f"ANSWER_STRATEGIES gives {provider!r} the strategy {strategy!r}",
                    hint=f"choose one of {', '.join(STRATEGIES)}",
                    id="queries.E001",
                )
            )
    for name, replacement in REMOVED_SETTINGS.items():
        if os.environ.get(name):
            problems.append(
                Warning(
                    f"{name} is set but no longer read",
                    hint=f"how a provider answers is ANSWER_STRATEGIES: {replacement}",
                    id="queries.W001",
                )
            )
    return problems
