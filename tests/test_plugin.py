"""The MkDocs plugin (studysite/site/mkdocs_plugin.py) and the MkDocs 1.6 behaviour it relies on.

The plugin keeps its Session on its instance and speeds up `mkdocs serve` by caching the theme's
file list (studysite/site/theme_cache.py): both depend on MkDocs internals, checked here so that an
upgrade of MkDocs fails these tests rather than silently losing state or listing stale files.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import jinja2
import material
import mkdocs
import pytest
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.theme import Theme
from mkdocs.utils.yaml import yaml_load

from studysite.errors import SiteError
from studysite.languages import LANGUAGES
from studysite.model import LANGS
from studysite.site import bank_watch, engine, theme_cache
from studysite.site.mkdocs_plugin import StudySitePlugin
from studysite.site.session import Session
from studysite.site.settings import DRIVEN_ENV
from tests.sitekit import FIXTURE_BANKS, ROOT

pytestmark = pytest.mark.unit
MATERIAL_LANGUAGES = Path(material.__file__).parent / "templates" / "partials" / "languages"
"""Material's interface strings, one template per language."""


def _config(tmp_path: Path, plugin: str = "- studysite", extra: str = "") -> MkDocsConfig:
    (tmp_path / "docs").mkdir(exist_ok=True)
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        f"site_name: t\ntheme:\n  name: material\n  custom_dir: {ROOT / 'overrides'}\nplugins:\n  {plugin}\n{extra}",
        encoding="utf-8",
    )
    return load_config(str(config))


def test_the_entry_point_names_the_plugin_class() -> None:
    (found,) = [ep for ep in entry_points(group="mkdocs.plugins") if ep.name == "studysite"]
    assert found.load() is StudySitePlugin


def test_mkdocs_keeps_one_plugin_instance_per_process(tmp_path: Path) -> None:
    """The Session lives on the instance: every `mkdocs serve` rebuild loads the config again."""
    first, second = _config(tmp_path), _config(tmp_path)
    plugin = first.plugins["studysite"]
    assert isinstance(plugin, StudySitePlugin)
    assert second.plugins["studysite"] is plugin


def test_options_default_to_the_banks_beside_mkdocs_yml(tmp_path: Path) -> None:
    plugin = _config(tmp_path).plugins["studysite"]
    assert isinstance(plugin, StudySitePlugin)
    assert Path(plugin.config.banks) == tmp_path / "banks"
    assert plugin.config.finish == "all"
    other = _config(tmp_path, "- studysite: {banks: elsewhere, finish: search}").plugins["studysite"]
    assert isinstance(other, StudySitePlugin)
    assert (Path(other.config.banks), other.config.finish) == (tmp_path / "elsewhere", "search")


def test_an_unknown_option_value_is_a_config_error(tmp_path: Path) -> None:
    from mkdocs.exceptions import Abort

    with pytest.raises(Abort):
        _config(tmp_path, "- studysite: {finish: most}")


def test_bad_extra_qa_leaves_as_a_plugin_error_after_file_line_messages(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = _config(tmp_path, extra=_QA.replace("lang: zh\n", "lang: fr\n", 1))
    lines = (tmp_path / "mkdocs.yml").read_text(encoding="utf-8").splitlines()
    line = lines.index("    lang: fr") + 1
    with (
        caplog.at_level(logging.ERROR),
        pytest.raises(PluginError, match=r"^1 problem\(s\) in the site configuration$"),
    ):
        StudySitePlugin().on_config(config)
    assert (
        f"{tmp_path / 'mkdocs.yml'}:{line}: extra.qa.lang: must be one of {', '.join(LANGS)} (got 'fr')" in caplog.text
    )


def test_a_bad_bank_leaves_as_a_plugin_error_and_docs_untouched(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    banks = tmp_path / "banks"
    shutil.copytree(FIXTURE_BANKS, banks)
    bank = banks / "ai-infra-3.txt"
    bank.write_text(bank.read_text(encoding="utf-8") + "\nQ: \n", encoding="utf-8")
    monkeypatch.delenv("STUDYSITE_BANKS", raising=False)
    monkeypatch.delenv("STUDYSITE_SKIP_GENERATE", raising=False)
    config = _config(tmp_path, extra=_QA)
    plugin = config.plugins["studysite"]
    assert isinstance(plugin, StudySitePlugin)
    with (
        caplog.at_level(logging.ERROR),
        pytest.raises(PluginError, match=r"problem\(s\) in banks/; docs/ left unchanged"),
    ):
        plugin.on_config(config)
    assert f"{bank}:" in caplog.text
    assert list((tmp_path / "docs").iterdir()) == []


def test_docs_without_the_generated_nav_is_a_plugin_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """STUDYSITE_SKIP_GENERATE=1 builds docs/ as it is: never generated, it fails in one line, not a traceback."""
    monkeypatch.setenv("STUDYSITE_SKIP_GENERATE", "1")
    config = _config(tmp_path, extra=_QA)
    with pytest.raises(PluginError, match=r"\.nav\.json: no such file or directory.*`make pages`"):
        StudySitePlugin().on_config(config)
    (tmp_path / "docs" / ".nav.json").write_text("[", encoding="utf-8")
    with pytest.raises(PluginError, match=r"\.nav\.json: not the generator's JSON"):
        StudySitePlugin().on_config(config)


def test_a_build_the_driver_starts_only_renders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under `make site` the driver (studysite/site/driver.py) generates, builds every language and
    finishes the site; the plugin in each language's build (STUDYSITE_DRIVEN=1) neither generates docs/
    (a bad bank is not even read), nor starts other builds, nor finishes the site folder."""
    banks = tmp_path / "banks"
    shutil.copytree(FIXTURE_BANKS, banks)
    (banks / "ai-infra-3.txt").write_text("Q: \n", encoding="utf-8")  # would fail any generation
    monkeypatch.delenv("STUDYSITE_BANKS", raising=False)
    monkeypatch.delenv("STUDYSITE_SKIP_GENERATE", raising=False)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / ".nav.json").write_text('[{"首页": "index.md"}]', encoding="utf-8")
    config = _config(tmp_path, extra=_QA)
    plugin = config.plugins["studysite"]
    assert isinstance(plugin, StudySitePlugin)
    monkeypatch.setenv(DRIVEN_ENV, "1")
    plugin.on_startup(command="build", dirty=False)
    plugin.on_config(config)  # no PluginError: the bank was not read
    assert plugin.session.generated is None and config.nav == [{"首页": "index.md"}]
    plugin.on_pre_build(config=config)
    assert plugin.session.others is None
    site = Path(config.site_dir)
    site.mkdir()
    plugin.on_post_build(config=config)
    assert list(site.iterdir()) == []  # no bundles, search index, sitemap or offline files
    monkeypatch.delenv(DRIVEN_ENV)
    plugin.session = Session()
    with pytest.raises(PluginError, match=r"problem\(s\) in banks/"):
        plugin.on_config(config)  # the same build, not driven: it generates, and fails on the bank


def test_the_engine_loads_the_settings_the_driver_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """engine.current().settings(): the config the driver and the site steps read, checked with FILE:LINE."""
    monkeypatch.delenv("STUDYSITE_BANKS", raising=False)
    _config(tmp_path, "- studysite: {banks: elsewhere}", extra=_QA)
    settings = engine.current().settings(tmp_path / "mkdocs.yml", tmp_path / "out", strict=True)
    assert (settings.banks, settings.site_dir, settings.strict) == (tmp_path / "elsewhere", str(tmp_path / "out"), True)
    assert settings.docs_dir == str(tmp_path / "docs") and settings.extra["qa"]["lang"] == "zh"
    monkeypatch.setenv("STUDYSITE_BANKS", str(tmp_path / "copy"))
    assert engine.current().settings(tmp_path / "mkdocs.yml", tmp_path / "out", strict=False).banks == tmp_path / "copy"
    _config(tmp_path, extra=_QA.replace("lang: zh\n", "lang: fr\n", 1))
    line = (tmp_path / "mkdocs.yml").read_text(encoding="utf-8").splitlines().index("    lang: fr") + 1
    with pytest.raises(SiteError, match=rf"^{tmp_path / 'mkdocs.yml'}:{line}: extra\.qa\.lang: must be one of"):
        engine.current().settings(tmp_path / "mkdocs.yml", tmp_path / "out", strict=True)
    _config(tmp_path, "- search", extra=_QA)
    with pytest.raises(SiteError, match=r"no `studysite` under `plugins:`"):
        engine.current().settings(tmp_path / "mkdocs.yml", tmp_path / "out", strict=True)


def test_the_theme_file_cache_lists_what_mkdocs_lists(tmp_path: Path) -> None:
    """MkDocs 1.6 finds a theme's static files through `Theme.get_env()` and the environment's
    `list_templates`; the cache must see those calls and give the same files, and notice a new
    file in our overrides."""
    overrides = tmp_path / "overrides"
    shutil.copytree(ROOT / "overrides", overrides)
    config = _config(tmp_path)
    config.theme = Theme(name="material", custom_dir=str(overrides))
    assert isinstance(config.theme.get_env(), jinja2.Environment)
    plain = _theme_files(config)
    listed: dict[tuple[object, ...], list[str]] = {}
    assert theme_cache.remember_theme_files(config.theme, listed), (
        f"MkDocs {mkdocs.__version__} is not {theme_cache.SUPPORTED}x: check studysite/site/theme_cache.py's "
        "assumptions against it, then widen SUPPORTED"
    )
    assert _theme_files(config) == plain
    assert len(listed) == 1, "MkDocs no longer lists the theme's files through Environment.list_templates"
    assert _theme_files(config) == plain and len(listed) == 1  # the second build: from the cache
    (overrides / "assets" / "new.css").write_text("a{}", encoding="utf-8")
    assert _theme_files(config) == sorted([*plain, "assets/new.css"])
    assert len(listed) == 2


def test_builds_list_the_theme_files_mkdocs_lists_without_walking_hidden_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside `mkdocs serve` nothing is kept, but Material's hidden icon folder is not walked: the
    files found are MkDocs' own, with a hidden folder in our overrides too."""
    overrides = tmp_path / "overrides"
    shutil.copytree(ROOT / "overrides", overrides)
    (overrides / ".hidden").mkdir()
    (overrides / ".hidden" / "x.css").write_text("a{}", encoding="utf-8")
    (overrides / "assets" / ".x.css").write_text("a{}", encoding="utf-8")
    config = _config(tmp_path)
    config.theme = Theme(name="material", custom_dir=str(overrides))
    plain = _theme_files(config)
    walked: list[str] = []
    real_walk = os.walk
    monkeypatch.setattr(
        os, "walk", lambda top, **kw: (walked.append(d) or (d, n, f) for d, n, f in real_walk(top, **kw))
    )
    assert theme_cache.remember_theme_files(config.theme, None)
    assert _theme_files(config) == plain
    hidden = [d for d in walked if any(part in d for part in ("/.icons", "/.hidden"))]
    assert walked and not hidden, f"walked into a hidden folder: {hidden[:3]}"
    assert any("material" in d for d in walked)  # (the walk above was ours: os.walk was seen)


def test_the_theme_file_cache_stays_off_on_another_mkdocs(tmp_path: Path) -> None:
    theme = Theme(name="material")
    before = theme.get_env
    assert not theme_cache.remember_theme_files(theme, {}, version="1.7.0")
    assert theme.get_env == before


@pytest.mark.parametrize("config_file", ["mkdocs.yml", *(item.config for item in LANGUAGES.extra)])
def test_material_strings_looked_up_once_are_materials_own(config_file: str) -> None:
    """overrides/partials/language.html answers Material's t(key) through theme_cache.theme_strings:
    for the theme language of each of our configs, every key Material has (and one it has not) gives
    what Material's own partials/language.html gives, its English fallback included."""
    with open(ROOT / config_file, "rb") as fd:  # read, not validated: a fresh clone has no docs/en yet
        language = yaml_load(fd)["theme"]["language"]
    keys = sorted(set(re.findall(r'^\s+"([a-z0-9.]+)":', (MATERIAL_LANGUAGES / "en.html").read_text("utf-8"), re.M)))
    mine = (MATERIAL_LANGUAGES / f"{language}.html").read_text("utf-8")
    assert len(keys) > 40 and any(f'"{key}":' not in mine for key in keys) == (language != "en")
    page = "{% import 'partials/language.html' as lang with context %}{% for k in keys %}{{ lang.t(k) }}\n{% endfor %}"
    context = {"config": {"theme": {"language": language}}, "keys": [*keys, "no.such.key"]}
    materials = Theme(name="material").get_env().from_string(page).render(context)
    ours_env = Theme(name="material", custom_dir=str(ROOT / "overrides")).get_env()
    assert Path(ours_env.get_template("partials/language.html").filename or "").is_relative_to(ROOT / "overrides")
    ours_env.globals["qa_theme_t"] = theme_cache.theme_strings(ours_env, language)
    ours = ours_env.from_string(page).render(context)
    assert ours == materials and len(materials.splitlines()) == len(keys) + 1 and "no.such.key" in materials


def test_python_m_studysite_site_is_the_make_site_driver(tmp_path: Path) -> None:
    """`make site` runs `python -m studysite site`: it takes build_site.py's options; anything else is a usage error."""
    run = functools.partial(subprocess.run, capture_output=True, text=True, check=False, cwd=tmp_path)
    helped = run([sys.executable, "-m", "studysite", "site", "--help"])
    assert helped.returncode == 0 and "python -m studysite site" in helped.stdout and "--site-dir" in helped.stdout
    wrong = run([sys.executable, "-m", "studysite", "sites"])
    assert wrong.returncode == 2 and "usage: python -m studysite site" in wrong.stderr


def _theme_files(config: MkDocsConfig) -> list[str]:
    files = Files([])
    files.add_files_from_theme(config.theme.get_env(), config)
    return sorted(f.src_uri for f in files)


_QA = """extra:
  qa:
    lang: zh
    languages:
      - {lang: zh, name: 中文, root: "", html_lang: zh, hreflang: zh, source: bank}
      - {lang: en, name: English, root: "en/", html_lang: en, hreflang: en, config: mkdocs.en.yml, source: translation}
      - {lang: zh-Hant, name: 繁體中文, root: "zh-Hant/", html_lang: zh-TW, hreflang: zh-Hant, config: mkdocs.zh-Hant.yml, source: converted, from: zh, opencc: s2twp}
"""


def _material_env(cache: jinja2.BytecodeCache | None) -> jinja2.Environment:
    """Material's base template with our overrides, as MkDocs loads it, with `cache` as its bytecode cache."""
    env = Theme(name="material", custom_dir=str(ROOT / "overrides")).get_env()
    env.bytecode_cache = cache
    return env


def test_compiled_templates_are_kept_on_disk_and_used_by_the_next_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = theme_cache.disk_template_cache({"STUDYSITE_TEMPLATE_CACHE": str(tmp_path / "t")})
    assert cache is not None
    first = _material_env(cache).get_template("main.html")
    assert list((tmp_path / "t").iterdir()), "nothing was cached"
    compiled: list[str] = []
    real = jinja2.Environment.compile
    monkeypatch.setattr(
        jinja2.Environment, "compile", lambda self, *a, **k: compiled.append(str(a[1:2])) or real(self, *a, **k)
    )
    second = _material_env(theme_cache.disk_template_cache({"STUDYSITE_TEMPLATE_CACHE": str(tmp_path / "t")}))
    again = second.get_template("main.html")
    assert compiled == [], f"compiled again despite the cache: {compiled}"
    assert again.render.__code__.co_code == first.render.__code__.co_code


def test_a_broken_or_unwritable_template_cache_never_fails_a_build(tmp_path: Path) -> None:
    where = tmp_path / "t"
    reference = _material_env(None).get_template("404.html").render.__code__.co_code
    cache = theme_cache.disk_template_cache({"STUDYSITE_TEMPLATE_CACHE": str(where)})
    _material_env(cache).get_template("404.html")
    for entry in where.iterdir():  # every entry cut short, as a killed build or a full disk leaves it
        entry.write_bytes(entry.read_bytes()[:40])
    assert _material_env(cache).get_template("404.html").render.__code__.co_code == reference
    where.chmod(0o500)  # read-only: nothing can be written (root ignores modes, so also a file as the folder)
    try:
        blocked = tmp_path / "file"
        blocked.write_text("not a folder", encoding="utf-8")
        for folder in (where, blocked / "t"):
            env = _material_env(theme_cache.DiskTemplateCache(str(folder)))
            assert env.get_template("404.html").render.__code__.co_code == reference
    finally:
        where.chmod(0o700)
    assert theme_cache.disk_template_cache({"STUDYSITE_TEMPLATE_CACHE": str(blocked / "t")}) is None
    assert theme_cache.disk_template_cache({"STUDYSITE_TEMPLATE_CACHE": ""}) is None  # switched off


def test_a_bank_saved_again_while_the_watcher_generates_is_generated_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor that truncates and then writes a bank can be read half-saved: the watcher's run
    checks the inputs after generating and runs again, so the pages of the last save stay."""
    banks = shutil.copytree(FIXTURE_BANKS, tmp_path / "banks")
    docs = tmp_path / "docs"
    bank = banks / "ai-infra-3.txt"
    real_generate = bank_watch.generate
    runs: list[str] = []
    saves = ["通信量极小（已修改）。"]

    def generate_then_save(*args: object, **kwargs: object) -> object:
        result = real_generate(*args, **kwargs)  # type: ignore[arg-type]
        runs.append(bank.read_text(encoding="utf-8"))
        if saves:  # the rest of the save lands after this run read the bank
            bank.write_text(runs[0].replace("通信量很小，通信本身不是瓶颈。", saves.pop()), encoding="utf-8")
        return result

    monkeypatch.setattr(bank_watch, "generate", generate_then_save)
    session = Session()
    rebuilds: list[int] = []
    session.request_rebuild = lambda: rebuilds.append(len(runs))
    bank_watch.regenerate(banks, docs, session)
    assert len(runs) == 2
    assert rebuilds == [2], "one rebuild, asked for after the last run wrote docs/"
    page = next(docs.glob("ai-infra-3/two-batch-overlap*"))
    page_text = (page / "index.md" if page.is_dir() else page).read_text(encoding="utf-8")
    assert "通信量极小（已修改）。" in page_text
    assert session.inputs == bank_watch.inputs_fingerprint(banks, docs, "")
    # Nothing changed since: one run, the pages stay.
    runs.clear()
    bank_watch.regenerate(banks, docs, session)
    assert len(runs) == 1
    assert rebuilds == [2], "nothing written: no rebuild"


def test_under_serve_mkdocs_stops_polling_docs_and_the_bank_watcher_asks_for_rebuilds(tmp_path: Path) -> None:
    """MkDocs 1.6's LiveReloadServer: docs/ leaves its watched paths, and the session's request sets the
    flag its build loop waits for (bank_watch.serve_from_banks says why). A server without that flag
    keeps watching docs/ (a later MkDocs: edits are still served, after MkDocs' own poll)."""
    from mkdocs.livereload import LiveReloadServer

    docs = tmp_path / "docs"
    docs.mkdir()
    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path / "site"))
    try:
        server.watch(str(docs))
        server.watch(str(tmp_path / "mkdocs.yml"))
        session = Session()
        bank_watch.serve_from_banks(server, str(docs), session)
        assert os.path.abspath(docs) not in server._watched_paths
        assert os.path.abspath(tmp_path / "mkdocs.yml") in server._watched_paths
        assert session.request_rebuild is not None and not server._want_rebuild
        session.request_rebuild()
        assert server._want_rebuild
    finally:
        server.server_close()

    class OtherServer:
        def unwatch(self, path: str) -> None:
            raise AssertionError("docs/ must stay watched")

    other = Session()
    bank_watch.serve_from_banks(OtherServer(), str(docs), other)
    assert other.request_rebuild is None
