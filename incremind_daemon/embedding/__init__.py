"""Embedding models: the in-process and HTTP backends, the query cache, and installing models.

The store keeps the ``Embedder`` protocol and the vectors; this package makes
embedders. Kept free of imports, so ``model list`` need not load numpy's models.
"""
