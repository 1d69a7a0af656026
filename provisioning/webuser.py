"""The webapp's operating-system user: gunicorn started as root (`make serve` on a plain host) runs its workers as
the system user `papersearch-web`, made here as the node's user is (provisioning/localnode/runas.py).

The master stays root (it binds, forks and reaps; it never imports the app: no preload). Before the fork it puts
into the workers' environment the one identity they need — the web user's password and the signing key, read as
root — and takes the indexer's and the superuser's out; the workers then hold no file of .local/ open and need
to read none. They must still import code: the checkout and every folder on sys.path. One the web user cannot
reach (a Python under /root, mode 0700) is mirrored once as hard links under .local/web-runtime/ and each worker's
import paths point there (`enter`); where neither the checkout is reachable nor a mirror can be made, the workers
stay root and a warning says why (DECISIONS.md D-189).
"""

from __future__ import annotations

import hashlib
import logging
import os
import pwd
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from papersearch import credentials
from papersearch.paths import PROJECT_ROOT, local_dir
from papersearch.settings import Settings
from provisioning.localnode.config import world_traversable
from provisioning.localnode.runas import NodeUser

NAME = "papersearch-web"
# Identities the site must not hold: the indexer's and the superuser's (an operator's shell may export them).
NOT_FOR_THE_WEB = ("ES_USERNAME", "ES_PASSWORD", "ES_API_KEY", "ELASTIC_USERNAME", "ELASTIC_PASSWORD")
# Parts of the standard library the site never imports: left out of a mirror.
_NOT_MIRRORED = shutil.ignore_patterns("site-packages", "test", "tests", "idlelib", "tkinter", "turtledemo",
                                       "ensurepip", "lib2to3")
log = logging.getLogger("gunicorn.error")


@dataclass(frozen=True)
class Drop:
    """Whom the workers become, and where their import paths now lead."""

    uid: int
    gid: int
    mirrors: dict[str, str] = field(default_factory=dict)  # unreachable folder → its mirror


def prepare(settings: Settings) -> Drop | None:
    """In gunicorn's master, before any fork: None when not root (the workers run as whoever started it) or when
    the web user cannot be given what it needs to run (said in a warning)."""
    if os.geteuid() != 0:
        return None
    if not world_traversable(PROJECT_ROOT) or not os.stat(PROJECT_ROOT).st_mode & 0o004:
        log.warning("workers run as root: the checkout %s is closed to other users, so %s could not import the site",
                    PROJECT_ROOT, NAME)
        return None
    try:
        NodeUser(NAME, why="the site's workers do not run as root").ensure()
        account = pwd.getpwnam(NAME)
    except (OSError, KeyError) as exc:  # no useradd on this system, say
        log.warning("workers run as root: the system user %s could not be made (%s)", NAME, exc)
        return None
    mirrors = {}
    for folder in _unreachable_import_paths():
        mirror = _mirror(Path(folder))
        if mirror is None:
            return None
        mirrors[folder] = str(mirror)
    _hand_over_secrets(settings)
    return Drop(account.pw_uid, account.pw_gid, mirrors)


def enter(drop: Drop) -> None:
    """In a worker just forked, still root (gunicorn then sets the group and user): no supplementary group of
    root's, and imports through the mirrors."""
    os.setgroups([])
    if not drop.mirrors:
        return

    def moved(path: str) -> str:
        for old, new in drop.mirrors.items():
            if path == old or path.startswith(old + os.sep):
                return new + path[len(old):]
        return path

    sys.path[:] = [moved(p) for p in sys.path]
    for module in list(sys.modules.values()):  # packages imported already find their submodules through __path__
        paths = getattr(module, "__path__", None)
        if isinstance(paths, list):
            paths[:] = [moved(p) for p in paths]
    sys.path_importer_cache.clear()


def hand_over(folder: Path, drop: Drop, what: str) -> None:
    """A folder the workers write in: theirs, or a clear error when they could not reach it."""
    folder.mkdir(parents=True, exist_ok=True)
    if not world_traversable(folder.parent):
        raise RuntimeError(f"{what} {folder}: its parent folders are closed to {NAME}, which writes there; "
                           "give a folder it can reach")
    os.chown(folder, drop.uid, drop.gid)


def _unreachable_import_paths() -> list[str]:
    """The outermost folders on sys.path that other users cannot reach."""
    closed = sorted(p for p in sys.path if p and os.path.isdir(p) and not world_traversable(Path(p)))
    return [p for i, p in enumerate(closed) if not any(p.startswith(q + os.sep) for q in closed[:i])]


def _mirror(folder: Path) -> Path | None:
    """`folder` as hard links (a copy across file systems) under .local/web-runtime, made once; None when the web
    user could not reach that either."""
    base = local_dir() / "web-runtime"
    stamp = f"{folder}|{sys.version}"
    mirror = base / f"{folder.name}-{hashlib.sha256(stamp.encode()).hexdigest()[:10]}"
    if not world_traversable(local_dir()):
        log.warning("workers run as root: %s is closed to other users and %s cannot hold a copy", folder, local_dir())
        return None
    if not (mirror / ".papersearch-mirrored").exists():
        # Made aside and renamed into place: a mirror in use by running workers is never touched, and of two
        # starts at once the first rename wins.
        log.info("mirroring %s into %s for %s (its folder is closed to other users)", folder, mirror, NAME)
        base.mkdir(parents=True, exist_ok=True)
        os.chmod(base, 0o755)
        draft = base / f".{mirror.name}.{os.getpid()}"
        shutil.rmtree(draft, ignore_errors=True)

        def link(src: str, dst: str) -> None:
            try:
                os.link(src, dst)
            except OSError:  # another file system, or links refused
                shutil.copy2(src, dst)

        shutil.copytree(folder, draft, symlinks=True, ignore=_NOT_MIRRORED, copy_function=link)
        (draft / ".papersearch-mirrored").touch()
        try:
            os.rename(draft, mirror)
        except OSError:  # made meanwhile by another start
            shutil.rmtree(draft, ignore_errors=True)
    return mirror


def _hand_over_secrets(settings: Settings) -> None:
    """The workers' identity in their environment (readable by them and root only), read here as root; the
    indexer's and the superuser's taken out."""
    for name in NOT_FOR_THE_WEB:
        os.environ.pop(name, None)
    if settings.is_local() and settings.es_web_api_key is None and settings.es_web_password is None:
        password = credentials.load().get(credentials.WEB)
        if password:
            os.environ["ES_WEB_USERNAME"], os.environ["ES_WEB_PASSWORD"] = credentials.WEB, password
    if settings.secret_key is None:  # the key file may be root's alone (.local/secret-key is 0600)
        os.environ["PAPERSEARCH_SECRET_KEY"] = settings.signing_key().decode()
