"""Turn plain-text interview question banks into a bilingual MkDocs study site."""
