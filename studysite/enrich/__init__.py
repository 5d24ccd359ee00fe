"""Enrich: what the model gains after parsing: tags, stable slugs, related questions and links."""
