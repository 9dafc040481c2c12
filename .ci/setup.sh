#!/usr/bin/env bash
# Installs what Headwise needs to build and test, only where it is missing:
# Debian packages (as root, with apt-get) and the npm packages in package-lock.json (npm ci).
# Run from anywhere; used by `npm test`, `npm start` and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

# Build and test: compiler, CMake, Eigen, Catch2, JSON for the fixtures, Emscripten, Chromium.
packages=(g++ cmake make libeigen3-dev catch2 nlohmann-json3-dev emscripten chromium)
# Fuzzing and sanitizers (clang with libFuzzer and its runtimes).
packages+=(clang libclang-rt-14-dev)
# The other two browser engines: Firefox ESR (driven over WebDriver BiDi by puppeteer-core) and
# WebKitGTK (WebKitWebDriver + MiniBrowser, driven by selenium-webdriver under Xvfb).
packages+=(firefox-esr webkit2gtk-driver xvfb)
# Real NumPy and PyTorch: the page's Python blocks are run and compared with what it prints,
# and the training fixtures are checked against them.
packages+=(python3-numpy python3-torch)
# Real course-site generators for the embedding tests: MkDocs (Material and default themes), Sphinx (RTD theme).
packages+=(mkdocs mkdocs-material python3-sphinx python3-sphinx-rtd-theme)
if [[ "${HEADWISE_SETUP_BENCH:-0}" == 1 ]]; then
  # Benchmarks: NumPy on OpenBLAS, side by side with the core.
  packages+=(libopenblas0-pthread)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: missing Debian packages: ${missing[*]}" >&2
    echo "setup: run as root, or: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q "${missing[@]}"
fi

# npm packages, exactly as locked, when node_modules is missing or older than the lock file.
if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund
fi
