"""The server's translations (locale/, domain django): every .mo is the compiled form of its .po (so a
.po edited without ``compilemessages`` fails here), every message has a translation, and the catalogues
hold exactly the msgids ``makemessages`` finds in the sources (so a text added without regenerating them
fails here)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

LOCALE = Path(__file__).resolve().parent.parent / "locale"
LANGS = ("es", "ja")
needs_gettext = pytest.mark.skipif(shutil.which("msgfmt") is None,
                                   reason="missing service: msgfmt (apt-get install gettext)")


@needs_gettext
@pytest.mark.parametrize("lang", LANGS)
def test_mo_is_compiled_from_po(lang, tmp_path):
    po = LOCALE / lang / "LC_MESSAGES" / "django.po"
    out = tmp_path / "django.mo"
    subprocess.run(["msgfmt", "--check-format", "-o", str(out), str(po)], check=True)
    assert out.read_bytes() == (po.with_suffix(".mo")).read_bytes(), (
        f"{po.with_suffix('.mo')} is stale: run manage.py compilemessages --ignore=.venv")


@needs_gettext
@pytest.mark.parametrize("lang", LANGS)
def test_every_message_translated(lang):
    po = LOCALE / lang / "LC_MESSAGES" / "django.po"
    untranslated = subprocess.run(["msgattrib", "--untranslated", "--no-obsolete", str(po)], check=True,
                                  capture_output=True, text=True).stdout
    fuzzy = subprocess.run(["msgattrib", "--only-fuzzy", "--no-obsolete", str(po)], check=True,
                           capture_output=True, text=True).stdout
    assert untranslated == "" and fuzzy == "", untranslated + fuzzy


def _msgids(po: Path) -> set[str]:
    """The msgids (with their msgctxt, plural forms joined) of a .po file, escapes as written; obsolete
    entries and the header left out."""
    ids, entry, key = set(), {}, None
    for line in [*po.read_text(encoding="utf-8").splitlines(), ""]:
        line = line.strip()
        if line.startswith('"') and key:
            entry[key] += line[1:-1]
            continue
        word = line.split(" ", 1)[0]
        if word in ("msgctxt", "msgid", "msgid_plural"):
            if word != "msgid_plural" and "msgid" in entry:
                ids.add((entry.get("msgctxt"), entry["msgid"], entry.get("msgid_plural")))
                entry = {}
            key, entry[word] = word, line.split(" ", 1)[1][1:-1]
        elif word.startswith("msgstr") or not line or line.startswith("#"):
            key = None
    if "msgid" in entry:
        ids.add((entry.get("msgctxt"), entry["msgid"], entry.get("msgid_plural")))
    return {"\x04".join(filter(None, (c, m, p))) for c, m, p in ids if m or c}


@needs_gettext
def test_every_source_message_in_the_catalogues(tmp_path):
    """The project's ``makemessages`` run over a copy of the server's sources finds no msgid missing from a
    catalogue, and no catalogue keeps a msgid the sources no longer have (regenerating would drop it):
    else run ``manage.py makemessages -l es -l ja``, translate, ``compilemessages`` (docs/development.md).
    No settings (so no LOCALE_PATHS): the copy's own locale/ is the only place it writes."""
    from games.management.commands.makemessages import IGNORED

    root = LOCALE.parent
    before = {p: p.read_bytes() for p in LOCALE.rglob("django.*")}

    def skip(folder, names):
        top = Path(folder) == root
        return [n for n in names if n.startswith(".") or (top and n in [*IGNORED, "locale"])
                or (Path(folder, n).is_file() and not n.endswith((".py", ".html", ".txt")))]

    copy = tmp_path / "src"
    shutil.copytree(root, copy, ignore=skip)
    (copy / "locale").mkdir()
    script = ("from django.conf import settings; settings.configure(USE_I18N=True); "
              "from django.core.management import call_command; "
              "from games.management.commands.makemessages import Command; "
              "call_command(Command(), locale=['es'], verbosity=0)")
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    subprocess.run([sys.executable, "-c", script], cwd=copy, env=env, check=True, timeout=60)
    sources = _msgids(copy / "locale" / "es" / "LC_MESSAGES" / "django.po")
    assert len(sources) > 100
    for lang in LANGS:
        catalogue = _msgids(LOCALE / lang / "LC_MESSAGES" / "django.po")
        missing, stale = sorted(sources - catalogue), sorted(catalogue - sources)
        assert not missing and not stale, (
            f"locale/{lang}: missing {missing}, stale {stale}: run manage.py makemessages -l es -l ja")
    assert before == {p: p.read_bytes() for p in LOCALE.rglob("django.*")}
