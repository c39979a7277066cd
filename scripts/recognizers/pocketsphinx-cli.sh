#!/bin/sh
# An external recognizer for `gambit run` (see README, "Other recognizers"): transcribes one audio
# file with the `pocketsphinx_continuous` program, whose front end (voice-activity segmentation,
# live normalisation) differs from Gambit's library use, and prints the JSON Gambit reads:
#   {"transcript": "...", "words": [{"word": "...", "start": 0.29, "end": 0.59, "confidence": 0.08}]}
# Usage: pocketsphinx-cli.sh AUDIO.wav   (16 kHz, 16-bit mono WAV)
set -eu
audio=${1:?usage: pocketsphinx-cli.sh AUDIO.wav}
[ -r "$audio" ] || { echo "cannot read $audio" >&2; exit 2; }
command -v pocketsphinx_continuous >/dev/null || { echo "pocketsphinx_continuous not found (apt-get install pocketsphinx)" >&2; exit 127; }

# With -time yes each segment prints its hypothesis, then one "word start end confidence" line per word.
pocketsphinx_continuous -infile "$audio" -time yes -logfn /dev/null | awk '
    NF == 4 && $2 ~ /^[0-9.]+$/ && $3 ~ /^[0-9.]+$/ && $4 ~ /^[0-9.]+$/ {
        word = $1
        if (word ~ /^(<.*>|\[.*\]|\+\+.*\+\+)$/) next   # silence, sentence markers, fillers
        sub(/\([0-9]+\)$/, "", word)                     # alternate pronunciation marker
        gsub(/\\/, "\\\\", word); gsub(/"/, "\\\"", word)
        transcript = transcript (n ? " " : "") word
        words = words (n ? ", " : "") sprintf("{\"word\": \"%s\", \"start\": %s, \"end\": %s, \"confidence\": %s}", word, $2, $3, $4)
        n++
    }
    END { printf "{\"transcript\": \"%s\", \"words\": [%s]}\n", transcript, words }
'
