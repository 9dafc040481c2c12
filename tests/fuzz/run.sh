#!/usr/bin/env bash
# Builds the libFuzzer target and fuzzes the core for N seconds (default 60; HEADWISE_FUZZ_SECONDS,
# when set, overrides N).
# Exits non-zero on any finding (crash, sanitizer report, broken invariant, timeout).
#   bash tests/fuzz/run.sh 600     # the 10-minute run
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${HEADWISE_FUZZ_SECONDS:-${1:-60}}"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j2
corpus="$(mktemp -d)"
artifacts="$(mktemp -d)"
trap 'rm -rf "$corpus"' EXIT
echo "fuzz: ${seconds}s, findings (if any) go to $artifacts/"
log="$artifacts/fuzz.log"
status=0
./build/fuzz/headwise_fuzz -max_total_time="$seconds" -max_len=512 -timeout=10 \
  -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" \
  >"$log" 2>&1 || status=$?
grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==|SUMMARY|ERROR)" "$log" || true
if [[ "$status" -ne 0 ]] || compgen -G "$artifacts/[!f]*" >/dev/null; then
  tail -50 "$log" >&2
  echo "fuzz: FAILED (exit $status); see $artifacts/" >&2
  exit 1
fi
rm -rf "$artifacts" # nothing found: only the log, whose figures are printed above
echo "fuzz: no findings in ${seconds}s"
