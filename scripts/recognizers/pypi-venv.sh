#!/usr/bin/env bash
# Makes the Python virtual environment that the PyPI-based recognizer adapters run in
# (scripts/recognizers/pocketsphinx-pypi.py), at $REPO/.venv/pocketsphinx, and installs the pinned
# engine into it, every wheel pinned by version and SHA-256; does nothing when that venv already has the pinned version.
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
requirements=$(mktemp)
trap 'rm -f "$requirements"' EXIT
# The engine and what it depends on, each wheel pinned by SHA-256 (pip refuses a file whose digest differs, and any
# package not listed), for CPython 3.11 (Debian 12's Python) on x86-64 Linux.
cat > "$requirements" <<EOF
pocketsphinx==$version --hash=sha256:bb8fd0fc7fb08dd8f85da21f5121f34ebf4186a5bee91ce85e2d358e69a448bf
sounddevice==0.5.6 --hash=sha256:de099612311ad81e55d31ccbd83f43ea6bf4d87b48f9b6ea55a1fbcde0eee4e0
cffi==2.1.1 --hash=sha256:34e261f78cb6ceaaa36f42f2613f4380d94d9c759a9c73c769ee6e0247364632
pycparser==3.12 --hash=sha256:a076f3f489b39b43ed13563a1dafe42447445bec2e294154ec5c57fcdda4c85e
EOF
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes --only-binary :all: \
    -r "$requirements"
[ "$(installed)" = "$version" ] || { echo "error: pocketsphinx $version did not install into $venv" >&2; exit 1; }
