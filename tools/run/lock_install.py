"""Install a hash-pinned lock into this environment, and check that what is installed is the lock.

    python tools/run/lock_install.py LOCK [LOCK …]     (run with the environment's own python)

pip checks a lock's hashes only for what it downloads: a package already installed at the pinned
version is taken as it is, so in an existing environment a lock whose hashes were changed would
pass unread. Here every entry that differs from the copy verified last time (kept in the
environment, ``.verified-LOCK``; all of them the first time) is installed again with
``--force-reinstall --require-hashes --no-deps``: downloaded, its hash checked. Then every entry
that applies to this platform must be installed at its pinned version; a package installed
that no lock names (the project itself aside) is listed, not removed. An unchanged lock
installs nothing, so `make setup` in an existing environment stays fast.
"""

import importlib.metadata
import re
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    from packaging.markers import Marker
    from packaging.utils import canonicalize_name
except ImportError:  # a fresh environment, before its lock: pip's own copy
    from pip._vendor.packaging.markers import Marker
    from pip._vendor.packaging.utils import canonicalize_name

ENTRY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")


def entries(text: str) -> dict[tuple[str, str], str]:
    """(name, marker) → the entry's text (its pin, marker and hashes), of a uv or pip-compile
    lock. A universal lock may pin one package twice, under two markers (numpy for Python 3.11,
    another for 3.12 and later): each is its own entry."""
    found, name = {}, None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            match = ENTRY.match(line)
            if not match:
                raise SystemExit(f"lock_install: cannot read this line of the lock: {line!r}")
            name = (canonicalize_name(match[1]), (match[3] or "").strip())
            if name in found:
                raise SystemExit(f"lock_install: the lock pins {name[0]} twice under one marker")
            found[name] = line.rstrip()
        elif name is not None:
            found[name] += "\n" + line.rstrip()
    return found


def pin(entry: str) -> tuple[str, str | None]:
    match = ENTRY.match(entry.split("\n", 1)[0])
    return match[2], match[3]


def install(lock: Path) -> set[str]:
    """Install ``lock`` (what changed since it was last verified), check it; the names it pins."""
    wanted = entries(lock.read_text(encoding="utf-8"))
    verified_copy = Path(sys.prefix) / f".verified-{lock.name}"
    verified = entries(verified_copy.read_text(encoding="utf-8")) if verified_copy.exists() else {}
    changed = [entry for name, entry in wanted.items() if verified.get(name) != entry]
    if changed:
        print(f"Installing {len(changed)} of the {len(wanted)} packages {lock} pins, each "
              "downloaded and its hash checked …", flush=True)
        with tempfile.NamedTemporaryFile("w", suffix=".lock", delete=False) as listed:
            listed.write("\n".join(changed) + "\n")
        try:
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",
                            "--disable-pip-version-check", "--require-hashes", "--no-deps",
                            "--force-reinstall", "-r", listed.name], check=True)
        except subprocess.CalledProcessError as failed:
            raise SystemExit(f"lock_install: {lock} did not install (its hashes checked): "
                             f"pip exited with {failed.returncode}") from None
        finally:
            Path(listed.name).unlink()
    wrong = []
    for (name, _), entry in wanted.items():
        version, marker = pin(entry)
        if marker and not Marker(marker).evaluate():
            continue
        try:
            installed = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            installed = None
        if installed != version:
            wrong.append(f"{name} {installed or 'missing'} (the lock pins {version})")
    if wrong:
        raise SystemExit(f"lock_install: this environment is not {lock}: " + "; ".join(wrong))
    verified_copy.write_text(lock.read_text(encoding="utf-8"), encoding="utf-8")
    return {name for name, _ in wanted}


def main(locks: list[str]) -> None:
    if not locks:
        raise SystemExit(__doc__)
    named = {"posattn"}.union(*(install(Path(path)) for path in locks))
    extra = sorted(canonicalize_name(d.metadata["Name"]) for d in importlib.metadata.distributions()
                   if d.metadata["Name"] and canonicalize_name(d.metadata["Name"]) not in named)
    if extra:
        print("lock_install: installed, though no lock names them (kept): " + ", ".join(extra),
              file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
