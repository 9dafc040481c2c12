#!/usr/bin/env bash
# `npm test`: set up, build, and run every test layer, in this order:
#   setup, build (native, WASM, page), test:types, test:cpp, test:js, test:browser, test:asan,
#   test:fuzz.
# The browser tests leave part of this 2-core machine idle (a test file keeps 1.3 to 1.8 cores
# busy), so the ASan and libFuzzer builds, which the last two layers need, are compiled
# meanwhile, in the background, at the lowest CPU priority (nice 19: they get only the CPU the
# tests leave; in local runs they end as the browser tests do). The sanitized test run and the fuzzing itself still run after the browser tests,
# alone. Prints each step's time at the end, and stops at the first step that fails.
set -uo pipefail
cd "$(dirname "$0")/.."

steps=()
step() {
  local name=$1 started=$SECONDS rc
  shift
  echo "== $name"
  "$@"
  rc=$?
  steps+=("$(printf '%-22s %5d s%s' "$name" $((SECONDS - started)) "$( ((rc)) && echo "  FAILED (exit $rc)")")")
  if ((rc)); then
    exit "$rc"
  fi
}

background=
background_log=$(mktemp)
finish() {
  local rc=$?
  if [[ -n "$background" ]] && kill -0 "$background" 2>/dev/null; then
    kill -- "-$background" 2>/dev/null || kill "$background" 2>/dev/null
  fi
  rm -f "$background_log"
  echo
  echo "== steps"
  for s in "${steps[@]}"; do echo "  $s"; done
  exit "$rc"
}
trap finish EXIT

step setup npm run setup
step build:native npm run build:native
step build:wasm npm run build:wasm
step build:web npm run build:web

# The sanitizer builds, in their own process group so that a failure elsewhere ends them too.
set -m
(
  nice -n 19 cmake --preset asan && nice -n 19 cmake --build --preset asan -j2 &&
    nice -n 19 cmake --preset fuzz && nice -n 19 cmake --build --preset fuzz -j2
) >"$background_log" 2>&1 &
background=$!
set +m
started_background=$SECONDS

step test:types npm run test:types
step test:cpp npm run test:cpp
step test:js npm run test:js
step test:browser npm run test:browser

wait_background() {
  wait "$background"
  local rc=$?
  background=
  echo "(the ASan and libFuzzer builds ended $((SECONDS - started_background)) s after they started)"
  if ((rc)); then
    cat "$background_log"
    echo "the ASan or libFuzzer build failed (exit $rc)" >&2
  fi
  return "$rc"
}
step "asan+fuzz builds (rest)" wait_background
step test:asan npm run test:asan
step test:fuzz npm run test:fuzz
