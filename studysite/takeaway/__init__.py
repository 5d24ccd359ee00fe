"""Take-away files: Anki decks and CSV, and the print edition's PDF."""
