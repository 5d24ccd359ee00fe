"""What pages show of offline reading: the "Offline reading" control and the zip's link and size slot.

Pages render them as placeholders; studysite/site/offline.py, which makes the service worker and the
zip after the site is built, fills in the sizes (and drops the control from the zip's own copy).
"""

from __future__ import annotations

import json

from ..i18n import STRINGS
from ..model import Lang
from .markup import el

ZIP_PATH = "downloads/ai-infra-site.zip"
"""The download, relative to the site root (the home page of each language links to it)."""
ZIP_SIZE_SLOT = "<span data-qa-zip-size></span>"
"""Where the home pages show the zip's size; filled in once the zip is built."""
SCOPE_SIZE_ATTR = "data-qa-offline-sizes"
SCOPE_SIZE_SLOT = f'{SCOPE_SIZE_ATTR}=""'
"""In the offline control (offline_control): the compressed size of each scope it offers, filled
in by studysite/site/offline.py as JSON ({"site": bytes, ...}) on the home pages and bank pages."""


def offline_control(lang: Lang, scopes: list[str]) -> str:
    """The "Offline reading" control for `scopes` (`site`, `lang:zh`, `bank:zh:ai-infra-3`): a placeholder
    that overrides/assets/qa/offline.js fills in (hidden without a service worker). Its sizes are filled
    in once the site is built (SCOPE_SIZE_SLOT); its strings are the page's language's."""
    text = {key: STRINGS["offline." + key][lang] for key in _CONTROL_STRINGS}  # placeholders filled in the page
    body = json.dumps(text, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    attrs = {
        "class": "qa-offline-control",
        "data-qa-offline-scopes": " ".join(scopes),
        SCOPE_SIZE_ATTR: "",  # written as SCOPE_SIZE_SLOT, which offline.py finds and fills in
        "data-qa-offline-text": body,
        "hidden": True,
    }
    return str(el("div", attrs))


_CONTROL_STRINGS = (
    "scope.site",
    "scope.lang",
    "scope.bank",
    "get",
    "cancel",
    "remove",
    "progress",
    "stored",
    "visited",
    "savedata",
    "failed.quota",
    "failed.network",
    "failed.other",
    "cancelled",
    "done",
    "removed",
    "label",
)
"""The control's strings (i18n keys below `offline.`), all in the page's language."""
