"""Text-generation metrics: ROUGE-N (own implementation, character-level for Chinese),
sentence-embedding similarity (the packaged all-MiniLM-L6-v2) and BERTScore (optional)."""

from lexbench.metrics.rouge import RougeScore, rouge_n, rouge_tokens

__all__ = ["RougeScore", "rouge_n", "rouge_tokens"]
