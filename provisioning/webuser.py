"""The webapp's operating-system user: gunicorn started as root (`make serve` on a plain host) runs its workers as
the system user `papersearch-web`, made here as the node's user is (provisioning/localnode/runas.py).

The master stays root (it binds, forks and reaps; it never imports the app: no preload). Before the fork it puts
into the workers' environment the one identity they need — the web user's password and the signing key, read as
root — and takes the indexer's and the superuser's out; the workers then hold no file of .local/ open and need
to read none. They must still import code and read what packages find beside their files: the checkout and every
folder on sys.path. A checkout other users cannot enter (under /root, mode 0700) is mirrored as hard links into a
folder they can reach, with its venv when that is inside, and gunicorn starts again from the mirror
(`run_from_reachable_copy`): then every module the master imported has paths the workers can follow (a package
that found its data beside its __file__ at import, Flask's templates). Other closed folders on sys.path (a Python
under /root) are mirrored and each worker's import paths point there (`enter`). Where no mirror can be made, the
workers stay root and a warning says why (DECISIONS.md D-189, D-213).
"""

from __future__ import annotations

import hashlib
import logging
import os
import pwd
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from papersearch import credentials
from papersearch.paths import PROJECT_ROOT, local_dir, node_state_file
from papersearch.settings import Settings
from provisioning.localnode.config import reachable_home, world_traversable
from provisioning.localnode.runas import NodeUser

NAME = "papersearch-web"
# Identities the site must not hold: the indexer's and the superuser's (an operator's shell may export them).
NOT_FOR_THE_WEB = ("ES_USERNAME", "ES_PASSWORD", "ES_API_KEY", "ELASTIC_USERNAME", "ELASTIC_PASSWORD")
# Parts of the standard library the site never imports: left out of its mirror.
_NOT_MIRRORED = {"site-packages", "test", "tests", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3"}
MIRRORED_FROM = "PAPERSEARCH_WEB_MIRRORED_FROM"  # set on the gunicorn started again from a mirror: the checkout
_MARK = ".papersearch-mirrored"  # written last into a finished mirror; holds the folder it mirrors
KEEP_MIRRORS = 3  # of one folder, the newest; older ones (code replaced since: each pull makes one) go at a start
log = logging.getLogger("gunicorn.error")
Ignore = Callable[[str, list[str]], set[str]]


@dataclass(frozen=True)
class Drop:
    """Whom the workers become, where their import paths now lead, and what their environment gains."""

    uid: int
    gid: int
    mirrors: dict[str, str] = field(default_factory=dict)  # unreachable folder → its mirror
    env: dict[str, str] = field(default_factory=dict)


def run_from_reachable_copy(argv: list[str], before_exec: Callable[[], None]) -> None:
    """In gunicorn's master, first thing: started as root in a checkout other users cannot enter, start gunicorn
    again (the same process, exec) from a mirror of the checkout, and of its venv when the venv is closed too;
    .local/ stays where it is (PAPERSEARCH_LOCAL_DIR). Returns when that is not needed or not possible (said)."""
    if os.geteuid() != 0 or os.environ.get(MIRRORED_FROM) or not _closed(str(PROJECT_ROOT)):
        return
    base = _mirror_base()
    if base is None:
        log.warning("workers run as root: the checkout %s is closed to other users and no folder for a copy of it "
                    "could be made", PROJECT_ROOT)
        return
    python = sys.executable
    venv = Path(sys.prefix)
    if sys.prefix != sys.base_prefix and _closed(sys.prefix) and Path(sys.executable).is_relative_to(venv):
        python = str(_mirror(venv, base, _keep_all) / Path(sys.executable).relative_to(venv))
    checkout = _mirror(PROJECT_ROOT, base, _checkout_files)
    os.chdir(_moved(os.getcwd(), {str(PROJECT_ROOT): str(checkout)}))
    env = os.environ | {MIRRORED_FROM: str(PROJECT_ROOT), "PAPERSEARCH_LOCAL_DIR": str(local_dir())}
    log.info("the checkout %s is closed to %s: starting again from its copy %s", PROJECT_ROOT, NAME, checkout)
    before_exec()
    os.execve(python, [python, "-m", "gunicorn", *argv[1:]], env)


def prepare(settings: Settings) -> Drop | None:
    """In gunicorn's master, before any fork: None when not root (the workers run as whoever started it) or when
    the web user cannot be given what it needs to run (said in a warning)."""
    if os.geteuid() != 0:
        return None
    if _closed(str(PROJECT_ROOT)):  # no copy could be made (run_from_reachable_copy said why)
        return None
    try:
        NodeUser(NAME, why="the site's workers do not run as root").ensure()
        account = pwd.getpwnam(NAME)
    except (OSError, KeyError) as exc:  # no useradd on this system, say
        log.warning("workers run as root: the system user %s could not be made (%s)", NAME, exc)
        return None
    mirrors = {}
    closed = _unreachable_import_paths()
    base = _mirror_base() if closed else None
    for folder in closed:
        if base is None:
            log.warning("workers run as root: %s is closed to other users and %s cannot hold a copy", folder,
                        local_dir())
            return None
        mirrors[folder] = str(_mirror(Path(folder), base, _standard_library))
    env = {}
    if settings.is_local() and not world_traversable(node_state_file().parent):
        env["ES_URL"] = settings.url()  # the local node's addresses, from a state file the workers cannot read
    _hand_over_secrets(settings)
    return Drop(account.pw_uid, account.pw_gid, mirrors, env)


def enter(drop: Drop) -> None:
    """In a worker just forked, still root (gunicorn then sets the group and user): no supplementary group of
    root's, and imports through the mirrors."""
    os.setgroups([])
    os.environ.update(drop.env)
    if not drop.mirrors:
        return
    sys.path[:] = [_moved(p, drop.mirrors) for p in sys.path]
    for module in list(sys.modules.values()):  # packages imported already find their submodules through __path__
        paths = getattr(module, "__path__", None)
        if isinstance(paths, list):
            paths[:] = [_moved(p, drop.mirrors) for p in paths]
    sys.path_importer_cache.clear()


def hand_over(folder: Path, drop: Drop, what: str) -> None:
    """A folder the workers write in: theirs, or a clear error when they could not reach it."""
    folder.mkdir(parents=True, exist_ok=True)
    if not world_traversable(folder.parent):
        raise RuntimeError(f"{what} {folder}: its parent folders are closed to {NAME}, which writes there; "
                           "give a folder it can reach")
    os.chown(folder, drop.uid, drop.gid)


def _moved(path: str, mirrors: dict[str, str]) -> str:
    for old, new in mirrors.items():
        if path == old or path.startswith(old + os.sep):
            return new + path[len(old):]
    return path


def _closed(folder: str) -> bool:
    return not world_traversable(Path(folder)) or not os.stat(folder).st_mode & 0o004


def _unreachable_import_paths() -> list[str]:
    """The outermost folders on sys.path that other users cannot reach."""
    closed = sorted(p for p in sys.path if p and os.path.isdir(p) and not world_traversable(Path(p)))
    return [p for i, p in enumerate(closed) if not any(p.startswith(q + os.sep) for q in closed[:i])]


def _mirror_base() -> Path | None:
    """Where mirrors go: .local/web-runtime when other users can reach .local, else this checkout's folder
    under /var/lib/papersearch (as the node's files go there, provisioning/localnode/config.py)."""
    if world_traversable(local_dir()):
        return local_dir().resolve() / "web-runtime"  # the path the workers take, not through a closed link
    home = reachable_home(Path(os.environ.get(MIRRORED_FROM, PROJECT_ROOT)))  # the checkout's, copy or not
    try:
        home.mkdir(parents=True, exist_ok=True)
        for folder in (home.parent, home):  # ours; a umask of 077 would close them
            os.chmod(folder, os.stat(folder).st_mode | 0o055)
    except OSError:
        return None
    return home / "web-runtime" if world_traversable(home) else None


def _standard_library(directory: str, names: list[str]) -> set[str]:
    return {name for name in names if name in _NOT_MIRRORED}


def _checkout_files(directory: str, names: list[str]) -> set[str]:
    """A checkout without its dot-folders: .git, .local (the node's data), .venv (mirrored on its own if closed);
    a .env file stays (Settings reads it from gunicorn's folder)."""
    if Path(directory) != PROJECT_ROOT:
        return set()
    return {name for name in names if name.startswith(".") and os.path.isdir(os.path.join(directory, name))}


def _keep_all(directory: str, names: list[str]) -> set[str]:
    return set()


def _files(folder: Path, ignore: Ignore) -> Iterator[str]:
    for directory, dirs, names in os.walk(folder):
        skipped = ignore(directory, dirs + names)
        dirs[:] = sorted(d for d in dirs if d not in skipped)
        yield from (os.path.join(directory, name) for name in sorted(names) if name not in skipped)


def _fingerprint(folder: Path, ignore: Ignore) -> str:
    """What the mirror would hold, by path, size and time: a pull or an install since the last start gives a new
    mirror, never stale code under the old one's name. Compiled files are left out: written by any import, they
    would make a mirror a start, and Python checks them against their source anyway."""
    digest = hashlib.sha256(f"{folder}|{sys.version}".encode())
    for path in _files(folder, lambda directory, names: ignore(directory, names) | {"__pycache__"}):
        try:
            st = os.lstat(path)
        except OSError:
            continue
        digest.update(f"{path}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:12]


def _mirror(folder: Path, base: Path, ignore: Ignore) -> Path:
    """`folder` as hard links (a copy across file systems) under `base`, made once per content; its folders opened
    to other users (files keep their modes: a file only root may read stays so)."""
    mirror = base / f"{folder.name}-{_fingerprint(folder, ignore)}"
    if not (mirror / _MARK).exists():
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

        shutil.copytree(folder, draft, symlinks=True, ignore=ignore, copy_function=link)
        for directory, _, _ in os.walk(draft):
            os.chmod(directory, os.stat(directory).st_mode | 0o055)
        (draft / _MARK).write_text(str(folder))
        try:
            os.rename(draft, mirror)
        except OSError:  # made meanwhile by another start
            shutil.rmtree(draft, ignore_errors=True)
    _prune(folder, base, keep=mirror)
    return mirror


def _prune(folder: Path, base: Path, keep: Path) -> None:
    """Mirrors of `folder` beyond the newest KEEP_MIRRORS: code replaced since (each pull makes one)."""
    own = []
    for other in base.iterdir():
        mark = other / _MARK
        if other != keep and mark.is_file() and mark.read_text() == str(folder):
            own.append((mark.stat().st_mtime, other))
    for _, old in sorted(own, reverse=True)[KEEP_MIRRORS - 1:]:
        shutil.rmtree(old, ignore_errors=True)


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
