"""provisioning/webuser.py's mirrors: what a worker that is not root imports when its checkout, venv or Python is
closed to other users (DECISIONS.md D-189, D-213). Started as root for real in
tests/integration/test_gunicorn.py::test_the_workers_do_not_run_as_root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from provisioning import webuser


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "checkout"
    (root / "webapp" / "templates").mkdir(parents=True)
    (root / "webapp" / "__init__.py").write_text("x = 1\n")
    (root / "webapp" / "templates" / "page.html").write_text("<p>")
    for folder in (".git", ".local", ".venv"):
        (root / folder).mkdir()
        (root / folder / "big").write_text("not for the workers")
    (root / ".env").write_text("PAPERSEARCH_ALIAS=papers\n")
    os.chmod(root / "webapp", 0o700)
    monkeypatch.setattr(webuser, "PROJECT_ROOT", root)
    return root


def _tree(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.name != webuser._MARK}


def test_a_checkout_is_mirrored_without_its_dot_folders_and_opened_to_other_users(checkout, tmp_path):
    mirror = webuser._mirror(checkout, tmp_path / "runtime", webuser._checkout_files)
    assert _tree(mirror) == {".env", "webapp", "webapp/__init__.py", "webapp/templates",
                             "webapp/templates/page.html"}
    assert (mirror / "webapp" / "__init__.py").stat().st_ino == (checkout / "webapp" / "__init__.py").stat().st_ino
    assert (mirror / "webapp").stat().st_mode & 0o055 == 0o055  # the source folder was 0700
    assert (mirror / webuser._MARK).read_text() == str(checkout)


def test_the_same_files_give_the_same_mirror_and_new_ones_a_new_mirror(checkout, tmp_path):
    base = tmp_path / "runtime"
    first = webuser._mirror(checkout, base, webuser._checkout_files)
    assert webuser._mirror(checkout, base, webuser._checkout_files) == first
    page = checkout / "webapp" / "templates" / "page.html"
    page.unlink()
    page.write_text("<p>changed by a pull</p>")  # git writes a new file: the old mirror's link keeps the old one
    second = webuser._mirror(checkout, base, webuser._checkout_files)
    assert second != first
    assert (second / "webapp" / "templates" / "page.html").read_text() == "<p>changed by a pull</p>"
    assert (first / "webapp" / "templates" / "page.html").read_text() == "<p>"  # running workers keep theirs


def test_only_the_newest_mirrors_of_a_folder_are_kept(checkout, tmp_path):
    base = tmp_path / "runtime"
    other = tmp_path / "other"
    other.mkdir()
    (other / "lib.py").write_text("")
    kept_other = webuser._mirror(other, base, webuser._keep_all)
    made = []
    for n in range(webuser.KEEP_MIRRORS + 2):
        (checkout / "webapp" / f"new{n}.py").write_text("")
        made.append(webuser._mirror(checkout, base, webuser._checkout_files))
        os.utime(made[-1] / webuser._MARK, (n, n))  # made in this order
    assert [m.exists() for m in made] == [False, False, True, True, True]
    assert kept_other.exists()  # another folder's mirrors are not this one's to remove


def test_the_standard_library_mirror_leaves_out_what_the_site_never_imports(tmp_path):
    lib = tmp_path / "python3.11"
    for name in ("json", "site-packages", "tkinter", "test"):
        (lib / name).mkdir(parents=True)
        (lib / name / "__init__.py").write_text("")
    mirror = webuser._mirror(lib, tmp_path / "runtime", webuser._standard_library)
    assert _tree(mirror) == {"json", "json/__init__.py"}


def test_a_path_moves_into_the_mirror_that_holds_it():
    mirrors = {"/root/.pyenv/lib/python3.11": "/var/lib/papersearch/x/web-runtime/python3.11-1"}
    assert webuser._moved("/root/.pyenv/lib/python3.11/json", mirrors) == \
        "/var/lib/papersearch/x/web-runtime/python3.11-1/json"
    assert webuser._moved("/root/.pyenv/lib/python3.11x", mirrors) == "/root/.pyenv/lib/python3.11x"
    assert webuser._moved("/usr/lib/python3", mirrors) == "/usr/lib/python3"
