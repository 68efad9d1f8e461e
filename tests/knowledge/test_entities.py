"""Regex entity extraction: proper nouns, acronyms and camelCase identifiers."""

from __future__ import annotations

from pathlib import Path

from knowledge.ingest.entities import STOP_WORDS, extract_entities, query_entities
from knowledge.ingest.extract import extract

FILES = Path(__file__).resolve().parents[1] / "fixtures" / "files"


def test_multi_word_proper_nouns_are_found_and_normalised() -> None:
    entities = extract_entities("A Large Language Model was shown in New York by Marie  Curie.")

    assert entities == {"large language model": 1, "new york": 1, "marie curie": 1}


def test_leading_stop_words_are_not_part_of_a_name() -> None:
    entities = extract_entities("When Marie Curie arrived. The Large Hadron Collider. In New York.")

    assert entities == {"marie curie": 1, "large hadron collider": 1, "new york": 1}


def test_a_capitalised_sentence_start_alone_is_not_an_entity() -> None:
    assert extract_entities("This Model is good. Then Paris was quiet.") == {}


def test_names_do_not_run_across_line_breaks() -> None:
    assert extract_entities("Introduction\nMarie Curie") == {"marie curie": 1}


def test_acronyms_of_two_to_six_characters_with_digits_are_found() -> None:
    entities = extract_entities("RAG with BM25 at CERN beats GPT4; LLMs help. X, A1, TOOLONGWORD.")

    assert entities == {"rag": 1, "bm25": 1, "cern": 1, "gpt4": 1, "llm": 1}


def test_shouted_stop_words_are_not_acronyms() -> None:
    assert extract_entities("THE END AND IT") == {"end": 1}


def test_camel_case_identifiers_are_found() -> None:
    entities = extract_entities("Set rerankScore in LangGraph via OpenAI on an iPhone.")

    assert entities == {"rerankscore": 1, "langgraph": 1, "openai": 1, "iphone": 1}


def test_counts_add_up_across_the_text() -> None:
    text = "Marie Curie met Pierre Curie. Marie Curie used RAG. RAG and rerankScore, RAG."

    assert extract_entities(text) == {
        "marie curie": 2,
        "pierre curie": 1,
        "rag": 3,
        "rerankscore": 1,
    }


def test_accented_names_are_found() -> None:
    assert extract_entities("Émile Zola lived near São Paulo? No.") == {
        "émile zola": 1,
        "são paulo": 1,
    }


def test_query_entities_are_distinct_and_in_order() -> None:
    question = "How did Marie Curie and CERN use RAG, and did Marie Curie use rerankScore?"

    assert query_entities(question) == ["marie curie", "cern", "rag", "rerankscore"]


def test_stop_list_has_26_words() -> None:
    assert len(STOP_WORDS) == 26


def test_entities_of_a_sample_document() -> None:
    text = extract((FILES / "sample.txt").read_bytes(), "sample.txt").text

    entities = extract_entities(text)

    assert entities["marie curie"] == 1
    assert entities["large hadron collider"] == 1
    assert entities["cern"] == 1
    assert entities["bm25"] == 1
    assert entities["retrievalaugmented"] == 1
    assert entities["nobel prizes"] == 1
