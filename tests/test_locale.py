"""The server's translations (locale/, domain django): every .mo is the compiled form of its .po (so a
.po edited without ``compilemessages`` fails here) and every message has a translation."""

import shutil
import subprocess
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
