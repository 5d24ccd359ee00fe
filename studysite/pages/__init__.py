"""Pages: render the model to Markdown pages, one module per page kind; pure (model, language) -> str."""
