#!/usr/bin/env bash
# Installs what Headwise needs, only where it is missing: Debian packages (as root, with apt-get)
# and the npm packages in package-lock.json (npm ci). Run from anywhere.
#
#   bash .ci/setup.sh build   what `npm start` needs to build and serve the page: the compiler,
#                             CMake, Eigen, Emscripten, and the npm packages in "dependencies"
#                             (esbuild, http-server)
#   bash .ci/setup.sh         everything `npm test` needs on top (the default; also .ci/run)
#   HEADWISE_SETUP_BENCH=1    adds what `npm run bench` needs (OpenBLAS, tests/bench/package.json)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-test}
case "$mode" in
  build | test) ;;
  *)
    echo "setup: unknown mode '$mode'; use 'build' (npm start) or 'test' (the default)" >&2
    exit 2
    ;;
esac

# Build the page: compiler, CMake, Eigen, Emscripten. None of them needs its recommended packages.
build_packages=(g++ cmake make libeigen3-dev emscripten)
packages=()
if [[ "$mode" == test ]]; then
  # The native Catch2 suite and its fixtures' JSON, and Chromium for the browser tests.
  packages+=(catch2 nlohmann-json3-dev chromium)
  # The print test reads Chromium's PDF output with pdftotext and pdftoppm.
  packages+=(poppler-utils)
  # A CJK font, so that the browser tests lay out and screenshot the Chinese lesson as readers see it.
  packages+=(fonts-noto-cjk)
  # Fuzzing and sanitizers (clang with libFuzzer and its runtimes).
  packages+=(clang libclang-rt-14-dev)
  # The other two browser engines: Firefox ESR (driven over WebDriver BiDi by puppeteer-core) and
  # WebKitGTK (WebKitWebDriver + MiniBrowser, driven by selenium-webdriver under Xvfb).
  packages+=(firefox-esr webkit2gtk-driver xvfb)
  # Real NumPy and PyTorch: the page's Python blocks are run and compared with what it prints,
  # and the training fixtures are checked against them.
  packages+=(python3-numpy python3-torch)
  # Real course-site generators for the embedding tests: MkDocs (Material and default themes),
  # Sphinx (RTD theme), Hugo.
  packages+=(mkdocs mkdocs-material python3-sphinx python3-sphinx-rtd-theme hugo)
  if [[ "${HEADWISE_SETUP_BENCH:-0}" == 1 ]]; then
    # Benchmarks: NumPy on OpenBLAS, side by side with the core.
    packages+=(libopenblas0-pthread)
  fi
fi

missing() {
  local p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      echo "$p"
    fi
  done
}
updated=0
install() {  # install [--no-install-recommends] PACKAGE...
  local flags=()
  if [[ "$1" == --* ]]; then
    flags+=("$1")
    shift
  fi
  local todo
  mapfile -t todo < <(missing "$@")
  ((${#todo[@]})) || return 0
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: missing Debian packages: ${todo[*]}" >&2
    echo "setup: run as root, or: sudo apt-get install ${flags[*]} ${todo[*]}" >&2
    exit 1
  fi
  echo "setup: installing ${todo[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ((!updated)); then
    apt-get update -q
    updated=1
  fi
  apt-get install -y -q "${flags[@]}" "${todo[@]}"
}
install --no-install-recommends "${build_packages[@]}"
# The test tools are installed with apt's recommended packages, as the browser tests have always
# run with them (fonts and libraries the browsers recommend among them).
if ((${#packages[@]})); then
  install "${packages[@]}"
fi

# npm packages, exactly as locked. `build` installs "dependencies" only; `test` everything.
# node_modules/.headwise-setup says which of the two is there. No package's install scripts run:
# h5p-standalone's preinstall (`npx only-allow yarn`) fails under npm, and esbuild's postinstall
# only checks its binary, which esbuild finds in its platform's package (@esbuild/linux-x64 here).
stamp=node_modules/.headwise-setup
have=$(cat "$stamp" 2>/dev/null || true)
if [[ ! -d node_modules || package-lock.json -nt "$stamp" || ("$mode" == test && "$have" != test) ]]; then
  if [[ "$mode" == build ]]; then
    echo "setup: npm ci --omit=dev"
    npm ci --omit=dev --ignore-scripts --no-audit --no-fund
  else
    echo "setup: npm ci"
    npm ci --ignore-scripts --no-audit --no-fund
  fi
  echo "$mode" >"$stamp"
fi
if [[ "${HEADWISE_SETUP_BENCH:-0}" == 1 ]]; then
  if [[ ! -d tests/bench/node_modules || tests/bench/package-lock.json -nt tests/bench/node_modules/.package-lock.json ]]; then
    echo "setup: npm ci in tests/bench (Lighthouse, TensorFlow.js)"
    npm ci --prefix tests/bench --no-audit --no-fund
  fi
fi
