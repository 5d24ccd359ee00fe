"""Where the project's own files are that the package reads but does not ship: overrides/ and node_modules/.

The theme's scripts and service worker (overrides/) and the npm tools (Pagefind, esbuild and the
browser libraries in node_modules/) belong to the project folder, beside mkdocs.yml. `make`
installs the package editable, so it is found as the checkout this package sits in. A regular
`pip install .` puts the package in site-packages: the project is then the folder MkDocs runs in.
"""

from __future__ import annotations

from pathlib import Path


def _project_root() -> Path:
    checkout = Path(__file__).resolve().parent.parent
    return checkout if (checkout / "overrides").is_dir() else Path.cwd().resolve()


ROOT = _project_root()
"""The project folder: it holds overrides/ and node_modules/."""
