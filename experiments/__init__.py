"""Speculative decoding and multi-token prediction: the experiments behind the chapter."""
