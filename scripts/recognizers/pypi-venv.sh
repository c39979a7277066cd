#!/usr/bin/env bash
# Makes the Python virtual environment that the PyPI-based recognizer adapters run in
# (scripts/recognizers/pocketsphinx-pypi.py), at $REPO/.venv/pocketsphinx, and installs the pinned
# engine into it; does nothing when that venv already has the pinned version.
# Needs `python3 -m venv` with ensurepip (Debian: python3-venv, which install-deps.sh installs).
# Usage: scripts/recognizers/pypi-venv.sh   (PYTHON=/path/to/python3 to choose the interpreter; the default
# is Debian's /usr/bin/python3 where it exists, else python3 on the PATH)
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
venv="$repo/.venv/pocketsphinx"
version=5.1.1
python=${PYTHON:-$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}

installed() {
    "$venv/bin/python" -c 'import importlib.metadata as m, sys; print(m.version("pocketsphinx"))' 2>/dev/null
}
[ -x "$venv/bin/python" ] && [ "$(installed)" = "$version" ] && exit 0

command -v "$python" >/dev/null || { echo "error: $python not found (apt-get install python3 python3-venv)" >&2; exit 2; }
"$python" -c 'import ensurepip, venv' 2>/dev/null || { echo "error: $python lacks venv/ensurepip (apt-get install python3-venv)" >&2; exit 2; }

echo "Creating $venv with pocketsphinx==$version"
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pocketsphinx==$version"
[ "$(installed)" = "$version" ] || { echo "error: pocketsphinx $version did not install into $venv" >&2; exit 1; }
