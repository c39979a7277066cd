#!/usr/bin/env bash
# Makes the Python virtual environment that holds Whisper's text normalizer as openai-whisper 20250625
# publishes it (whisper/normalizers/), the reference Gambit's `whisper` normalization is checked against, at
# $REPO/.venv/whisper-normalizer; does nothing when it is already there.
#
# Only the normalizer is installed, not Whisper: its two dependencies (regex, more-itertools) from pinned
# wheels with their SHA-256, and the normalizer's files taken from the openai-whisper source archive, whose
# SHA-256 is checked before anything is unpacked. Whisper itself (and torch) is never installed, and nothing
# here runs at scoring time: it is for the tests and for scripts/whisper-normalize.py.
#
# Needs `python3 -m venv` with ensurepip (Debian: python3-venv, which install-deps.sh installs) and network
# access to PyPI. Usage: scripts/whisper-normalizer-venv.sh   (PYTHON=/path/to/python3 to choose the
# interpreter; the default is Debian's /usr/bin/python3 where it exists, else python3 on the PATH)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
venv="$repo/.venv/whisper-normalizer"
python=${PYTHON:-$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
archive_url="https://files.pythonhosted.org/packages/35/8e/d36f8880bcf18ec026a55807d02fe4c7357da9f25aebd92f85178000c0dc/openai_whisper-20250625.tar.gz"
archive_sha256=37a91a3921809d9f44748ffc73c0a55c9f366c85a3ef5c2ae0cc09540432eb96
marker="$venv/whisper-normalizer-20250625"

[ -f "$marker" ] && [ -x "$venv/bin/python" ] && exit 0

command -v "$python" >/dev/null || { echo "error: $python not found (apt-get install python3 python3-venv)" >&2; exit 2; }
"$python" -c 'import ensurepip, venv' 2>/dev/null || { echo "error: $python lacks venv/ensurepip (apt-get install python3-venv)" >&2; exit 2; }

echo "Creating $venv with Whisper's normalizer (openai-whisper 20250625)"
rm -rf "$venv"
"$python" -m venv "$venv"
requirements=$(mktemp)
download=$(mktemp -d)
trap 'rm -rf "$requirements" "$download"' EXIT
# Wheels for CPython 3.11 (Debian 12's Python) on x86-64 and arm64 Linux, and for any Python: pip refuses a file
# whose digest differs, and any package not listed. Another Python finds no wheel here and stops, saying so.
cat > "$requirements" <<'EOF'
regex==2024.11.6 \
    --hash=sha256:f2a19f302cd1ce5dd01a9099aaa19cae6173306d1302a43b627f62e21cf18ac0 \
    --hash=sha256:1062b39a0a2b75a9c694f7a08e7183a80c63c0d62b301418ffd9c35f55aaa114
more-itertools==10.7.0 \
    --hash=sha256:d43980384673cb07d2f7d2d918c616b30c659c089ee23953f601d6609c67510e
EOF
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes --only-binary :all: \
    -r "$requirements"

"$venv/bin/python" - "$archive_url" "$archive_sha256" "$download" <<'EOF'
import hashlib, sys, tarfile, urllib.request
url, expected, folder = sys.argv[1:4]
path = f"{folder}/openai_whisper.tar.gz"
urllib.request.urlretrieve(url, path)
actual = hashlib.sha256(open(path, "rb").read()).hexdigest()
if actual != expected:
    sys.exit(f"error: {url} has SHA-256 {actual}, not the pinned {expected}")
with tarfile.open(path) as archive:
    wanted = [m for m in archive.getmembers()
              if m.isfile() and (m.name.endswith("/LICENSE") and m.name.count("/") == 1
                                 or "/whisper/normalizers/" in m.name)]
    archive.extractall(folder, members=wanted)
EOF
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
# A package of its own, so that importing it does not import Whisper (and torch).
mkdir -p "$site/whisper_normalizers"
cp "$download"/openai_whisper-20250625/whisper/normalizers/{__init__.py,basic.py,english.py,english.json} \
    "$site/whisper_normalizers/"
cp "$download"/openai_whisper-20250625/LICENSE "$site/whisper_normalizers/LICENSE"
"$venv/bin/python" -c 'from whisper_normalizers import EnglishTextNormalizer as N; assert N()("Dr. Smith") == "doctor smith"'
touch "$marker"
