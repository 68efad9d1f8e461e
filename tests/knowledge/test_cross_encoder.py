"""The CrossEncoder code path, proven with a tiny locally built classifier (random weights)."""

from __future__ import annotations

import math

import pytest


@pytest.fixture
def tiny_cross_encoder(tmp_path):
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    from providers.embedder import model_path

    tokenizer = BertTokenizerFast.from_pretrained(str(model_path()))
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
        num_labels=1,
    )
    model = BertForSequenceClassification(config)
    model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    return tmp_path


def test_a_local_cross_encoder_is_loaded_and_scores_raw_logits(tiny_cross_encoder, settings):
    from providers import reranker as reranker_module
    from providers.reranker import CrossEncoderReranker, Passage

    settings.RERANKER_MODEL = str(tiny_cross_encoder)
    reranker_module.reset()
    try:
        active = reranker_module.get_reranker()
        assert isinstance(active, CrossEncoderReranker)
        status = reranker_module.status()
        assert status["kind"] == "cross-encoder" and status["floor"] == 0.0
        assert "fallback_reason" not in status
        passages = [Passage("Marie Curie discovered radium."), Passage("Risotto needs rice.")]
        first = active.score("Who discovered radium?", passages)
        again = active.score("Who discovered radium?", passages)
        assert len(first) == 2 and all(math.isfinite(v) for v in first)
        assert first == again
        # Raw logits, not sigmoid probabilities: the scale is the model's own.
        assert first[0] != first[1]
    finally:
        reranker_module.reset()


def test_a_broken_model_folder_falls_back_and_says_why(tmp_path, settings):
    from providers import reranker as reranker_module

    (tmp_path / "config.json").write_text("{not json")
    settings.RERANKER_MODEL = str(tmp_path)
    reranker_module.reset()
    try:
        assert reranker_module.get_reranker().kind == "embedding-cosine+lexical"
        assert reranker_module.status()["fallback_reason"]
    finally:
        reranker_module.reset()
