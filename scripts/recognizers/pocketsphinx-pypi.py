#!/usr/bin/env python3
"""An external recognizer for Gambit: PocketSphinx 5.1.1 from PyPI, customized through its own tools.

    pocketsphinx-pypi.py prepare --training EXPORT.json --phrases PHRASES.json --artifact DIR [--weight W]
    pocketsphinx-pypi.py decode AUDIO.wav [--artifact DIR]
    pocketsphinx-pypi.py version

It runs in the virtual environment $REPO/.venv/pocketsphinx (made by scripts/recognizers/pypi-venv.sh):
started by any other interpreter, it re-executes itself under $REPO/.venv/pocketsphinx/bin/python.

prepare builds, in DIR:
  custom.arpa / custom.lm.bin  a trigram model of the expanded phrases, their (fractional) counts used as
                               n-gram counts, built by the engine's own builder (pocketsphinx.lm.ArpaBoLM)
                               and converted to binary by its NGramModel;
  dictionary.dict              the engine's cmudict-en-us.dict plus the training data's pronunciations
                               (X-SAMPA mapped to the model's CMU phones, added as alternates) and a
                               spelling-based pronunciation (flite's t2p) for any other word it lacks;
  manifest.json                what decode needs (weight, files, engine version) and what was added.
decode without --artifact uses the engine's stock model through its Python API (the baseline). With one,
it linearly interpolates the custom model with the stock en-us.lm.bin at run time,
P(w|h) = W * P_custom(w|h) + (1 - W) * P_stock(w|h), with the engine's own LM-set interpolation
(ngram_model_set_init with weights). 5.1.1's Python API offers no way to do that: an `lmctl` control file
only loads several models as separate searches, one active at a time, and the stock model cannot be
dumped to ARPA for an offline merge (its header counts disagree with its trie; the ARPA writer crashes).
So the customized decode drives the engine's exported C API (the library inside the wheel) through ctypes.

Exit codes: 0 success, 2 bad input or usage, 3 engine failure, 4 environment (venv) missing.
"""
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
VENV = os.path.join(REPO, ".venv", "pocketsphinx")
PINNED = "5.1.1"


def _ensure_venv():
    """Re-executes this script under the venv's python unless already running in it."""
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    python = os.path.join(VENV, "bin", "python")
    if not os.access(python, os.X_OK):
        sys.stderr.write(f"pocketsphinx-pypi: no virtual environment at {VENV}; "
                         "run scripts/recognizers/pypi-venv.sh\n")
        sys.exit(4)
    os.execv(python, [python, os.path.realpath(__file__)] + sys.argv[1:])


if __name__ == "__main__":
    _ensure_venv()

import argparse  # noqa: E402
import ctypes  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
import wave  # noqa: E402
from importlib import metadata  # noqa: E402

import pocketsphinx  # noqa: E402
from pocketsphinx.lm import ArpaBoLM  # noqa: E402


class InputError(Exception):
    """Bad input: exit 2."""


class EngineError(Exception):
    """The engine failed: exit 3."""


def engine_version():
    return metadata.version("pocketsphinx")


def model_paths():
    return {
        "hmm": pocketsphinx.get_model_path("en-us/en-us"),
        "lm": pocketsphinx.get_model_path("en-us/en-us.lm.bin"),
        "dict": pocketsphinx.get_model_path("en-us/cmudict-en-us.dict"),
    }


# --- Pronunciations -------------------------------------------------------------------------------

CMU_PHONES = set("AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH "
                 "UH UW V W Y Z ZH".split())

# US-English X-SAMPA symbol -> CMU phones of the en-us acoustic model.
XSAMPA = {
    "i": "IY", "I": "IH", "eI": "EY", "e": "EY", "E": "EH", "{": "AE", "a": "AA", "A": "AA", "Q": "AA",
    "O": "AO", "oU": "OW", "@U": "OW", "o": "OW", "U": "UH", "u": "UW", "V": "AH", "@": "AH",
    "3`": "ER", "@`": "ER", "@r": "ER", "r=": "ER", "3": "ER",
    "aI": "AY", "aU": "AW", "OI": "OY",
    "l=": "AH L", "n=": "AH N", "m=": "AH M",
    "p": "P", "b": "B", "t": "T", "d": "D", "k": "K", "g": "G", "f": "F", "v": "V", "s": "S", "z": "Z",
    "m": "M", "n": "N", "w": "W", "W": "W",
    "tS": "CH", "dZ": "JH", "T": "TH", "D": "DH", "S": "SH", "Z": "ZH", "h": "HH", "N": "NG",
    "l": "L", "5": "L", "r": "R", "r\\": "R", "j": "Y", "4": "T",
}
XSAMPA_SYMBOLS = sorted(XSAMPA, key=len, reverse=True)
XSAMPA_DROPPED = re.compile(r"[\"%'ˈˌ:ː.]")  # stress, length and syllable marks

# flite's US lexicon phones (t2p) that are not plain CMU phones.
FLITE = {"AX": "AH", "AXR": "ER", "IX": "IH", "DX": "T", "NX": "N", "EL": "AH L", "EM": "AH M",
         "EN": "AH N"}


def xsampa_to_cmu(phonemes, grapheme):
    """Maps one X-SAMPA pronunciation (space-separated symbols; longest match within a token) to CMU."""
    phones = []
    for token in phonemes.split():
        token = XSAMPA_DROPPED.sub("", token)
        while token:
            symbol = next((s for s in XSAMPA_SYMBOLS if token.startswith(s)), None)
            if symbol is None:
                raise InputError(f"pronunciation of {grapheme!r}: unknown X-SAMPA symbol at {token!r} "
                                 f"in {phonemes!r}")
            phones.extend(XSAMPA[symbol].split())
            token = token[len(symbol):]
    if not phones:
        raise InputError(f"pronunciation of {grapheme!r} is empty: {phonemes!r}")
    return " ".join(phones)


def spell_out(word):
    """A spelling-based pronunciation from flite's letter-to-sound rules (Debian: flite's t2p)."""
    t2p = shutil.which("t2p")
    if t2p is None:
        return None
    try:
        out = subprocess.run([t2p, word], capture_output=True, text=True, timeout=30, check=True).stdout
    except (subprocess.SubprocessError, OSError):
        return None
    phones = []
    for phone in out.split():
        phone = re.sub(r"\d", "", phone).upper()
        if phone == "PAU":
            continue
        phone = FLITE.get(phone, phone)
        if not all(p in CMU_PHONES for p in phone.split()):
            return None
        phones.extend(phone.split())
    return " ".join(phones) or None


def read_dictionary(path):
    """word -> list of phone strings, in the file's order (alternates `word(2)` folded in)."""
    entries = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 2:
                continue
            word = re.sub(r"\(\d+\)$", "", parts[0])
            entries.setdefault(word, []).append(" ".join(parts[1:]))
    return entries


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
    return data


def check_locale(data, what):
    locale = data.get("locale")
    if not isinstance(locale, str) or locale.replace("_", "-").lower() != "en-us":
        raise InputError(f"{what}: locale {locale!r} unsupported: pocketsphinx-pypi bundles only an en-US model")


def normalize(text):
    return text.lower().split()


def read_phrases(path, training):
    data = load_json(path, "phrase list")
    check_locale(data, "phrase list")
    if data.get("identifier") != training.get("identifier"):
        raise InputError(f"phrase list identifier {data.get('identifier')!r} does not match the training "
                         f"data's {training.get('identifier')!r}")
    phrases = data.get("phrases")
    if not isinstance(phrases, list) or not phrases:
        raise InputError(f"phrase list {path} has no phrases")
    result = []
    for i, item in enumerate(phrases):
        if not isinstance(item, dict) or not isinstance(item.get("phrase"), str):
            raise InputError(f"phrase list {path}: entry {i} lacks a \"phrase\" string")
        count = item.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, (int, float)) or not math.isfinite(count) \
                or count <= 0:
            raise InputError(f"phrase list {path}: {item['phrase']!r} has count {count!r} (expected > 0)")
        words = normalize(item["phrase"])
        if not words:
            raise InputError(f"phrase list {path}: entry {i} is an empty phrase")
        result.append((words, float(count)))
    return result


def read_pronunciations(training):
    result = {}
    items = training.get("pronunciations", [])
    if not isinstance(items, list):
        raise InputError("training data: \"pronunciations\" must be a list")
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("grapheme"), str) \
                or not isinstance(item.get("phonemes"), list):
            raise InputError(f"training data: malformed pronunciation {item!r}")
        words = normalize(item["grapheme"])
        if len(words) != 1:
            raise InputError(f"training data: pronunciation grapheme {item['grapheme']!r} must be one word")
        for phonemes in item["phonemes"]:
            if not isinstance(phonemes, str):
                raise InputError(f"training data: malformed phonemes for {item['grapheme']!r}")
            result.setdefault(words[0], []).append(xsampa_to_cmu(phonemes, item["grapheme"]))
    return result


# --- prepare --------------------------------------------------------------------------------------

def build_arpa(phrases, path):
    """The engine's ArpaBoLM, fed weighted counts: a phrase with count c counts as c sentences."""
    lm = ArpaBoLM(add_start=True)
    for words, count in phrases:
        words = ["<s>"] + words + ["</s>"]
        lm.sent_count += 1
        for j, w1 in enumerate(words):
            lm.grams_1[w1] += count
            if j + 1 < len(words):
                w2 = words[j + 1]
                lm.grams_2[w1][w2] += count
                if j + 2 < len(words):
                    lm.grams_3[w1][w2][words[j + 2]] += count
    lm.compute()
    if not lm.write_file(path):
        raise EngineError(f"cannot write {path}")
    return lm.count_1, lm.count_2, lm.count_3


def prepare(args):
    started = time.monotonic()
    if not (0.0 < args.weight <= 1.0):
        raise InputError(f"--weight {args.weight} out of range (0, 1]")
    training = load_json(args.training, "training data")
    check_locale(training, "training data")
    phrases = read_phrases(args.phrases, training)
    pronounced = read_pronunciations(training)

    paths = model_paths()
    base = read_dictionary(paths["dict"])
    added, spelled, missing = {}, {}, []
    for word, prons in pronounced.items():
        new = [p for p in dict.fromkeys(prons) if p not in base.get(word, [])]
        if new:
            added[word] = new
    vocabulary = dict.fromkeys(w for words, _ in phrases for w in words)
    for word in vocabulary:
        if word in base or word in added:
            continue
        pron = spell_out(word)
        if pron is None:
            missing.append(word)
        else:
            spelled[word] = pron
    if missing:
        reason = "and flite's t2p is not installed" if shutil.which("t2p") is None \
            else "and flite's t2p gave no usable pronunciation"
        raise InputError("no pronunciation for " + ", ".join(repr(w) for w in missing) +
                         ": not in cmudict-en-us.dict, not pronounced by the training data, " + reason)

    os.makedirs(args.artifact, exist_ok=True)
    arpa = os.path.join(args.artifact, "custom.arpa")
    lmbin = os.path.join(args.artifact, "custom.lm.bin")
    counts = build_arpa(phrases, arpa)
    pocketsphinx.set_loglevel("ERROR")
    try:
        model = pocketsphinx.NGramModel.readfile(arpa)
        model.write(lmbin, pocketsphinx.NGramModel.str_to_type("bin"))
    except Exception as e:  # the binding raises plain exceptions
        raise EngineError(f"NGramModel could not convert {arpa} to binary: {e}")

    dictionary = os.path.join(args.artifact, "dictionary.dict")
    with open(paths["dict"], encoding="utf-8") as src, open(dictionary, "w", encoding="utf-8") as out:
        shutil.copyfileobj(src, out)
        for word, prons in list(added.items()) + [(w, [p]) for w, p in spelled.items()]:
            n = len(base.get(word, []))
            for pron in prons:
                n += 1
                out.write(f"{word} {pron}\n" if n == 1 else f"{word}({n}) {pron}\n")

    manifest = {
        "engine": f"pocketsphinx {engine_version()} (PyPI)",
        "route": "runtime linear interpolation: ngram_model_set_init(custom, en-us.lm.bin)",
        "weight": args.weight,
        "lm": "custom.lm.bin",
        "dict": "dictionary.dict",
        "ngrams": list(counts),
        "phrases": len(phrases),
        "addedPronunciations": added,
        "spelledPronunciations": spelled,
    }
    with open(os.path.join(args.artifact, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    summary = {"artifact": args.artifact, "weight": args.weight, "phrases": len(phrases),
               "ngrams": list(counts), "addedPronunciations": len(added), "spelled": sorted(spelled),
               "seconds": round(time.monotonic() - started, 2)}
    print(json.dumps(summary))


# --- decode ---------------------------------------------------------------------------------------

def read_wav(path):
    try:
        with wave.open(path, "rb") as w:
            if (w.getframerate(), w.getnchannels(), w.getsampwidth()) != (16000, 1, 2):
                raise InputError(f"{path}: need 16 kHz mono 16-bit WAV, got {w.getframerate()} Hz, "
                                 f"{w.getnchannels()} channel(s), {8 * w.getsampwidth()}-bit")
            return w.readframes(w.getnframes()), w.getnframes() / 16000.0
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror or e}")
    except (wave.Error, EOFError) as e:
        raise InputError(f"{path} is not a readable PCM WAV file: {str(e) or type(e).__name__}")


FILLER = re.compile(r"^(<.*>|\[.*\]|\+\+.*\+\+)$")


def result_json(segments, frate):
    """segments: (word, start_frame, end_frame, posterior) in order."""
    words = []
    for word, sf, ef, prob in segments:
        if FILLER.match(word):
            continue
        word = re.sub(r"\(\d+\)$", "", word)
        words.append({"word": word, "start": round(sf / frate, 2), "end": round((ef + 1) / frate, 2),
                      "confidence": round(min(max(prob, 0.0), 1.0), 4)})
    return {"transcript": " ".join(w["word"] for w in words), "words": words}


class StockDecoder:
    """The baseline: the engine's stock model through its Python API, loaded once."""

    def __init__(self):
        pocketsphinx.set_loglevel("ERROR")
        self.decoder = pocketsphinx.Decoder(loglevel="ERROR")

    def decode(self, audio):
        decoder = self.decoder
        # The live cepstral mean adapts as utterances go by; the features start afresh for each, so that a served
        # decode answers as a fresh process does (checked: the same words on the chess corpus).
        decoder.reinit_feat()
        decoder.start_utt()
        decoder.process_raw(audio, full_utt=True)
        decoder.end_utt()
        frate = decoder.config["frate"]
        return result_json([(s.word, s.start_frame, s.end_frame, s.prob) for s in decoder.seg()], frate)


class EngineC:
    """The engine's exported C API (the library inside the PyPI wheel), for what its Python API lacks."""

    def __init__(self):
        from pocketsphinx import _pocketsphinx
        lib = ctypes.CDLL(_pocketsphinx.__file__)
        P, I, S = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
        sigs = {
            "ps_config_init": (P, [P]), "ps_config_free": (I, [P]),
            "ps_config_set_str": (P, [P, S, S]), "ps_config_int": (ctypes.c_long, [P, S]),
            "ps_init": (P, [P]), "ps_free": (I, [P]), "ps_get_logmath": (P, [P]),
            "ngram_model_read": (P, [P, S, I, P]), "ngram_model_free": (I, [P]),
            "ngram_model_set_init": (P, [P, ctypes.POINTER(P), ctypes.POINTER(S),
                                         ctypes.POINTER(ctypes.c_float), ctypes.c_int32]),
            "ps_add_lm": (I, [P, S, P]), "ps_activate_search": (I, [P, S]),
            "ps_start_utt": (I, [P]), "ps_end_utt": (I, [P]),
            "ps_process_raw": (I, [P, P, ctypes.c_size_t, I, I]),
            "ps_seg_iter": (P, [P]), "ps_seg_next": (P, [P]), "ps_seg_word": (S, [P]),
            "ps_seg_frames": (None, [P, ctypes.POINTER(I), ctypes.POINTER(I)]),
            "ps_seg_prob": (ctypes.c_int32, [P, ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int32),
                                             ctypes.POINTER(ctypes.c_int32)]),
            "logmath_exp": (ctypes.c_double, [P, I]),
            "ps_reinit_feat": (I, [P, P]),
        }
        for name, (restype, argtypes) in sigs.items():
            fn = getattr(lib, name)  # AttributeError if the wheel stops exporting it
            fn.restype, fn.argtypes = restype, argtypes
        self.lib = lib


class CustomDecoder:
    """The customized decode: custom and stock models interpolated by the engine's LM set, loaded once."""

    def __init__(self, artifact, manifest):
        paths = model_paths()
        weight = float(manifest["weight"])
        custom_lm = os.path.join(artifact, manifest["lm"])
        dictionary = os.path.join(artifact, manifest["dict"])
        for path in (custom_lm, dictionary):
            if not os.path.isfile(path):
                raise FileNotFoundError(f"artifact lacks {os.path.basename(path)}")
        if not (0.0 < weight <= 1.0):
            raise ValueError(f"manifest weight {weight} out of range (0, 1]")
        lib = self.lib = EngineC().lib
        pocketsphinx.set_loglevel("ERROR")
        config = self.config = lib.ps_config_init(None)
        for key, value in (("hmm", paths["hmm"]), ("dict", dictionary), ("loglevel", "ERROR")):
            lib.ps_config_set_str(config, key.encode(), value.encode())
        self.ps = lib.ps_init(config)
        if not self.ps:
            lib.ps_config_free(config)
            raise EngineError("ps_init failed")
        try:
            self._add_models(paths, custom_lm, weight)
        except Exception:
            self.close()
            raise

    def _add_models(self, paths, custom_lm, weight):
        lib, config, ps = self.lib, self.config, self.ps
        lmath = self.lmath = lib.ps_get_logmath(ps)
        files = [(b"custom", custom_lm, weight)]
        if weight < 1.0:
            files.append((b"en-us", paths["lm"], 1.0 - weight))
        models = []
        for _, path, _ in files:
            model = lib.ngram_model_read(config, path.encode(), 0, lmath)  # 0 = NGRAM_AUTO
            if not model:
                raise EngineError(f"ngram_model_read failed on {path}")
            models.append(model)
        n = len(files)
        lmset = lib.ngram_model_set_init(config, (ctypes.c_void_p * n)(*models),
                                         (ctypes.c_char_p * n)(*[f[0] for f in files]),
                                         (ctypes.c_float * n)(*[f[2] for f in files]), n)
        for model in models:
            lib.ngram_model_free(model)  # the set retains them
        if not lmset:
            raise EngineError("ngram_model_set_init failed")
        rc = lib.ps_add_lm(ps, b"custom", lmset)
        lib.ngram_model_free(lmset)  # the search retains it
        if rc < 0 or lib.ps_activate_search(ps, b"custom") < 0:
            raise EngineError("could not add or activate the interpolated language model")

    def decode(self, audio):
        lib, ps = self.lib, self.ps
        buf = ctypes.create_string_buffer(audio, len(audio))
        if lib.ps_reinit_feat(ps, None) < 0 or lib.ps_start_utt(ps) < 0 or lib.ps_process_raw(ps, buf, len(audio) // 2, 0, 1) < 0 \
                or lib.ps_end_utt(ps) < 0:
            raise EngineError("decoding failed")
        segments = []
        seg = lib.ps_seg_iter(ps)
        sf, ef = ctypes.c_int(), ctypes.c_int()
        a, l, b = ctypes.c_int32(), ctypes.c_int32(), ctypes.c_int32()
        while seg:
            word = lib.ps_seg_word(seg).decode("utf-8")
            lib.ps_seg_frames(seg, ctypes.byref(sf), ctypes.byref(ef))
            prob = lib.logmath_exp(self.lmath,
                                   lib.ps_seg_prob(seg, ctypes.byref(a), ctypes.byref(l), ctypes.byref(b)))
            segments.append((word, sf.value, ef.value, prob))
            seg = lib.ps_seg_next(seg)  # frees the iterator at the end
        return result_json(segments, lib.ps_config_int(self.config, b"frate"))

    def close(self):
        if self.ps:
            self.lib.ps_free(self.ps)
            self.ps = None
        if self.config:
            self.lib.ps_config_free(self.config)
            self.config = None


def load_decoder(artifact):
    """The decoder for an artifact (the stock one without), and what a decode says of the customization: None for
    the baseline, "applied", or "ignored" with the reason the artifact could not be loaded."""
    if artifact is None:
        return StockDecoder(), None, None
    if not os.path.isdir(artifact):
        raise InputError(f"artifact folder {artifact} does not exist")
    try:
        with open(os.path.join(artifact, "manifest.json"), encoding="utf-8") as f:
            manifest = json.load(f)
        return CustomDecoder(artifact, manifest), "applied", None
    except (OSError, ValueError, KeyError, TypeError, AttributeError, ctypes.ArgumentError, EngineError) as e:
        return StockDecoder(), "ignored", f"{type(e).__name__}: {e}"


def transcribe(decoder, use, reason, audio):
    result = decoder.decode(audio)
    if use is not None:
        result["customization"] = use
    if reason is not None:
        result["reason"] = reason
    return result


def decode(args):
    audio, _ = read_wav(args.audio)
    decoder, use, reason = load_decoder(args.artifact)
    try:
        print(json.dumps(transcribe(decoder, use, reason, audio)))
    finally:
        if isinstance(decoder, CustomDecoder):
            decoder.close()


def serve(args):
    """The long-lived form: the model loaded once, then one JSON request per line on standard input
    ({"audio": path, ...}) answered by one line of decode output, until the input ends."""
    decoder, use, reason = load_decoder(args.artifact)
    for line in sys.stdin:
        request = json.loads(line)
        audio, _ = read_wav(request["audio"])
        sys.stdout.write(json.dumps(transcribe(decoder, use, reason, audio)) + "\n")
        sys.stdout.flush()
    return 0


# --- main -----------------------------------------------------------------------------------------

def main(argv):
    parser = argparse.ArgumentParser(prog="pocketsphinx-pypi.py",
                                     description="PocketSphinx (PyPI) adapter for Gambit's external recognizers")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="build the customization artifact")
    p.add_argument("--training", required=True, help="training data export JSON (gambit prepare --export)")
    p.add_argument("--phrases", required=True, help="expanded phrase list JSON")
    p.add_argument("--artifact", required=True, help="folder to build the artifact in")
    p.add_argument("--weight", type=float, default=0.5,
                   help="interpolation weight of the custom model against the stock one (default 0.5)")
    d = sub.add_parser("decode", help="transcribe one 16 kHz mono 16-bit WAV")
    d.add_argument("audio")
    d.add_argument("--artifact", help="artifact folder from prepare (omit for the stock baseline)")
    v = sub.add_parser("serve", help="stay loaded: one JSON request per line on standard input, one answer each")
    v.add_argument("--artifact", help="artifact folder from prepare (omit for the stock baseline)")
    sub.add_parser("version", help="print the engine version")
    args = parser.parse_args(argv)
    try:
        if args.command == "version":
            print(f"pocketsphinx {engine_version()} (PyPI)")
        elif args.command == "prepare":
            prepare(args)
        elif args.command == "serve":
            return serve(args)
        else:
            decode(args)
    except InputError as e:
        sys.stderr.write(f"pocketsphinx-pypi: {e}\n")
        return 2
    except EngineError as e:
        sys.stderr.write(f"pocketsphinx-pypi: engine error: {e}\n")
        return 3
    except Exception as e:  # the binding raises RuntimeError/ValueError for engine failures
        sys.stderr.write(f"pocketsphinx-pypi: engine error: {type(e).__name__}: {e}\n")
        return 3
    return 0


if __name__ == "__main__":
    if engine_version() != PINNED:
        sys.stderr.write(f"pocketsphinx-pypi: warning: pocketsphinx {engine_version()} installed, "
                         f"this adapter was written for {PINNED}\n")
    sys.exit(main(sys.argv[1:]))
