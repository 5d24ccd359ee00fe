"""Site: the engine around MkDocs: the plugin, the English build, search, sitemap, offline copy, checks."""
