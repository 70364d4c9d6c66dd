#!/usr/bin/env bash
# Set up everything OMG-Agent needs on a fresh Debian/Ubuntu machine with Python >= 3.11:
# the adb binary, the fonts the vphone renders with, Xvfb, Tk, the accessibility bus and GTK
# apps for the desktop tests (apt),
# then a virtualenv in .venv with the package and every extra (all: ocr, video, mcp, ray,
# desktop) plus test and docs, so every test has its libraries. Safe to run again: it only
# adds what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v adb >/dev/null 2>&1 || need_apt+=(adb)
[ -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ] || need_apt+=(fonts-noto-cjk)
[ -f /usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf ] || need_apt+=(fonts-symbola)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need_apt+=(fonts-dejavu-core)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v Xvfb >/dev/null 2>&1 || need_apt+=(xvfb)  # the desktop driver's tests
"${PYTHON:-python3}" -c "import tkinter" 2>/dev/null || need_apt+=(python3-tk)  # their Tk app
# the AT-SPI tests: a session bus, the accessibility bus, and real GTK apps on it
command -v dbus-launch >/dev/null 2>&1 || need_apt+=(dbus-x11)
[ -x /usr/libexec/at-spi-bus-launcher ] || need_apt+=(at-spi2-core)
command -v mousepad >/dev/null 2>&1 || need_apt+=(mousepad)  # GTK editor + its save dialog
command -v galculator >/dev/null 2>&1 || need_apt+=(galculator)  # GTK calculator
"${PYTHON:-python3}" -c "import ensurepip" 2>/dev/null || need_apt+=(python3-venv)  # for .venv
if [ ${#need_apt[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    echo "setup: installing ${need_apt[*]} with apt-get"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    # adb and the fonts also come from Python packages (adbutils' adb, noto-cjk-sans-otc,
    # manimgx-fonts): the host's are only preferred
    echo "setup: no apt-get here; install these for the tests if missing: ${need_apt[*]}" >&2
  fi
fi

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $($python --version)"
  $python -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
# setuptools warns on every editable install that a folder named like the package may shadow
# it (the checkout is that folder, on purpose): quiet on success, errors still show
# all: every optional extra (docs/guide/install.md lists them with their sizes), among them
# ray for the fleet's Ray backend and its two-node integration test (~20 s, ~260 MB)
PYTHONWARNINGS=ignore .venv/bin/python -m pip install -q -e '.[all,test,docs]'
echo "setup: done (.venv/bin/omg-agent is ready)"
