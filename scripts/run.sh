#!/usr/bin/env bash
# The main job: installs missing Debian packages, builds Gambit in release mode, runs the shipped
# suite (Corpora/suite.yaml) over every corpus it names and writes the reports to Reports/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product gambit
.build/release/gambit run Corpora/suite.yaml --output Reports "$@"
