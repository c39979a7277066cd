#!/usr/bin/env python3
"""Whisper's EnglishTextNormalizer (openai-whisper 20250625), as the reference for Gambit's `whisper` mode.

Reads JSON lines, each one string, on standard input, and writes each string normalized, as one JSON string per
line, in order. Run it with the interpreter of the venv scripts/whisper-normalizer-venv.sh makes:

    .venv/whisper-normalizer/bin/python scripts/whisper-normalize.py < strings.jsonl
"""

import json
import sys

from whisper_normalizers import EnglishTextNormalizer


def main() -> int:
    normalize = EnglishTextNormalizer()
    out = sys.stdout
    for number, line in enumerate(sys.stdin, start=1):
        try:
            text = json.loads(line)
        except json.JSONDecodeError as error:
            print(f"error: standard input, line {number}: not a JSON string ({error})", file=sys.stderr)
            return 2
        if not isinstance(text, str):
            print(f"error: standard input, line {number}: not a JSON string", file=sys.stderr)
            return 2
        out.write(json.dumps(normalize(text), ensure_ascii=False) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
