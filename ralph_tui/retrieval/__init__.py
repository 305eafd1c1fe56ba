"""Retrieval: chunks of the documents, past episodes and external pages, searched by a
lexical (BM25) and a dense leg fused by reciprocal rank, with an optional MaxSim rerank."""
