#!/usr/bin/env bash
# Installs the Debian packages Gambit needs, only those that are missing, then the virtual environments of the
# PyPI engine (scripts/recognizers/pypi-venv.sh), of Whisper tiny.en (scripts/recognizers/whisper-venv.sh) and of
# Whisper's normalizer (scripts/whisper-normalizer-venv.sh).
# Run as root (or via sudo).
set -euo pipefail

packages=(
    libpocketsphinx-dev pocketsphinx-en-us pocketsphinx-testdata pocketsphinx
    libsndfile1-dev libsamplerate0-dev libxml2-dev
    flite flite1-dev espeak-ng sox sctk chromium
    slurm-wlm munge
    python3 python3-venv
)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing missing Debian packages: ${missing[*]}"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "error: run as root to install: ${missing[*]}" >&2; exit 2; }
        sudo="sudo"
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# PocketSphinx 5.1.1 from PyPI, for scripts/recognizers/pocketsphinx-pypi.py (does nothing once made).
"$(dirname "$0")/recognizers/pypi-venv.sh"

# Whisper tiny.en through faster-whisper 1.2.1, for scripts/recognizers/whisper-tiny-en.py: every wheel pinned by
# SHA-256, the model files checked by theirs (does nothing once made).
"$(dirname "$0")/recognizers/whisper-venv.sh"

# Whisper's EnglishTextNormalizer (openai-whisper 20250625) without Whisper, the reference the `whisper`
# normalization mode is tested against (scripts/whisper-normalizer-venv.sh; does nothing once made).
"$(dirname "$0")/whisper-normalizer-venv.sh"
