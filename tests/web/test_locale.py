"""The web client's own texts (web/locale/, domains django and djangojs): the .po files hold exactly the
texts of the current templates and scripts (``make messages`` regenerates them), every text is translated,
and every .mo is the compiled form of its .po."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "web"
DOMAINS = ("django", "djangojs")
LANGUAGES = ("es", "ja")
CASES = [(lang, domain) for lang in LANGUAGES for domain in DOMAINS]
pytestmark = pytest.mark.skipif(shutil.which("msgfmt") is None or shutil.which("xgettext") is None,
                                reason="missing service: gettext (apt-get install gettext)")


def _po(domain: str, lang: str = "es") -> Path:
    return WEB / "locale" / lang / "LC_MESSAGES" / f"{domain}.po"


def _msgids(po: Path) -> set[tuple[str, str]]:
    """The (msgid, msgid_plural) pairs of a .po file, the header left out."""
    text = po.read_text()
    ids = set()
    for m in re.finditer(r'^msgid ((?:"[^\n]*"\n)+)(?:msgid_plural ((?:"[^\n]*"\n)+))?', text, re.M):
        msgid = "".join(re.findall(r'"(.*)"', m.group(1)))
        plural = "".join(re.findall(r'"(.*)"', m.group(2) or ""))
        if msgid:
            ids.add((msgid, plural))
    return ids


@pytest.mark.parametrize(("lang", "domain"), CASES)
def test_po_holds_exactly_the_texts_of_the_sources(lang, domain, tmp_path):
    copy = tmp_path / "web"
    shutil.copytree(WEB, copy, ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
    shutil.rmtree(copy / "locale")
    (copy / "locale").mkdir()
    admin = Path(sys.executable).with_name("django-admin")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}  # no settings: the files land in ./locale
    subprocess.run([str(admin), "makemessages", "-l", lang, "-d", domain, "--no-location"], cwd=copy,
                   env=env, check=True, capture_output=True)
    fresh = _msgids(copy / "locale" / lang / "LC_MESSAGES" / f"{domain}.po")
    committed = _msgids(_po(domain, lang))
    assert fresh, "no texts were extracted"
    assert committed == fresh, (f"{_po(domain, lang)} is stale (run `make messages`): new "
                                f"{sorted(fresh - committed)}, gone {sorted(committed - fresh)}")


@pytest.mark.parametrize(("lang", "domain"), CASES)
def test_every_text_is_translated(lang, domain):
    po = _po(domain, lang)
    untranslated = subprocess.run(["msgattrib", "--untranslated", "--no-obsolete", str(po)], check=True,
                                  capture_output=True, text=True).stdout
    fuzzy = subprocess.run(["msgattrib", "--only-fuzzy", "--no-obsolete", str(po)], check=True,
                           capture_output=True, text=True).stdout
    assert untranslated == "" and fuzzy == "", untranslated + fuzzy


@pytest.mark.parametrize(("lang", "domain"), CASES)
def test_mo_is_compiled_from_po(lang, domain, tmp_path):
    po = _po(domain, lang)
    out = tmp_path / f"{domain}.mo"
    subprocess.run(["msgfmt", "--check-format", "-o", str(out), str(po)], check=True)
    assert out.read_bytes() == po.with_suffix(".mo").read_bytes(), f"{po.with_suffix('.mo')} is stale: run `make messages`"
