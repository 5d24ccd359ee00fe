"""Sources: read the bank files and data files into the typed model (parse, glossary, notes, translations)."""
