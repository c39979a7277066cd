#!/usr/bin/env bash
# The main job: installs missing Debian packages, builds Gambit in release mode and decodes the
# shipped sample recordings.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product gambit
.build/release/gambit decode /usr/share/pocketsphinx/test/data/librivox/*.wav "$@"
