#!/bin/sh
# long.sh RUNS ROUND_SECONDS HARNESS... - runs the libFuzzer harnesses $FUZZ_DIR/fuzz/HARNESS
# side by side, in rounds of ROUND_SECONDS each, until they have run RUNS executions in all.
# Each round starts from the harness's committed corpus and the corpus grown so far
# ($FUZZ_DIR/corpus/HARNESS). A finding (crash, leak, sanitizer report, timeout, memory over
# the limit) stops it: the harness's log is printed, its input is left in $FUZZ_DIR, and it
# exits 1. At the end it prints the count, the time taken and the date.
set -eu
want=$1
round=$2
shift 2
dir=${FUZZ_DIR:-build/fuzz}
total=0
rounds=0
begin=$(date +%s)
while [ "$total" -lt "$want" ]; do
	rounds=$((rounds + 1))
	for f in "$@"; do
		mkdir -p "$dir/corpus/$f"
		"$dir/fuzz/$f" -max_total_time="$round" -timeout=20 -rss_limit_mb=4096 \
			-artifact_prefix="$dir/$f-" "$dir/corpus/$f" "tests/fuzz/corpus/$f" \
			</dev/null >"$dir/$f.long.log" 2>&1 &
		echo $! >"$dir/$f.long.pid"
	done
	failed=""
	for f in "$@"; do
		wait "$(cat "$dir/$f.long.pid")" || failed="$failed $f"
	done
	line="fuzz-long: round $rounds:"
	for f in "$@"; do
		runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$dir/$f.long.log" | tail -n 1)
		total=$((total + ${runs:-0}))
		line="$line $f ${runs:-0}"
	done
	echo "$line; $total executions so far, $(($(date +%s) - begin)) s"
	for f in $failed; do
		tail -40 "$dir/$f.long.log"
		echo "fuzz-long: $f found a problem (its input is in $dir/$f-*)"
		exit 1
	done
done
echo "fuzz-long: $total executions of $# harnesses ($*) in $(($(date +%s) - begin)) s," \
	"no finding ($(date -u '+%Y-%m-%d %H:%M UTC'))"
