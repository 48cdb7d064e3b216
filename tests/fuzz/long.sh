#!/bin/sh
# long.sh RUNS ROUND_SECONDS HARNESS... - runs the libFuzzer harnesses $FUZZ_DIR/fuzz/HARNESS
# side by side ($FUZZ_JOBS processes of each, default 1, sharing its corpus), in rounds of
# ROUND_SECONDS each, until they have run RUNS executions in all. Each round starts from the
# harness's committed corpus and the corpus grown so far ($FUZZ_DIR/corpus/HARNESS). A finding
# (crash, leak, sanitizer report, timeout, memory over the limit) stops it: the harness's log is
# printed, its input is left in $FUZZ_DIR, and it exits 1. At the end it prints the count, the
# time taken, the date and the machine's processor count.
set -eu
want=$1
round=$2
shift 2
dir=${FUZZ_DIR:-build/fuzz}
jobs=${FUZZ_JOBS:-1}
total=0
rounds=0
begin=$(date +%s)
while [ "$total" -lt "$want" ]; do
	rounds=$((rounds + 1))
	pids=""
	for f in "$@"; do
		mkdir -p "$dir/corpus/$f"
		j=1
		while [ "$j" -le "$jobs" ]; do
			"$dir/fuzz/$f" -max_total_time="$round" -timeout=20 -rss_limit_mb=4096 \
				-artifact_prefix="$dir/$f-" "$dir/corpus/$f" "tests/fuzz/corpus/$f" \
				</dev/null >"$dir/$f.long$j.log" 2>&1 &
			pids="$pids $!:$f:$j"
			j=$((j + 1))
		done
	done
	failed=""
	for p in $pids; do
		wait "${p%%:*}" || failed="$failed ${p#*:}"
	done
	line="fuzz-long: round $rounds:"
	for f in "$@"; do
		runs=0
		j=1
		while [ "$j" -le "$jobs" ]; do
			n=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$dir/$f.long$j.log" | tail -n 1)
			runs=$((runs + ${n:-0}))
			j=$((j + 1))
		done
		total=$((total + runs))
		line="$line $f $runs"
	done
	echo "$line; $total executions so far, $(($(date +%s) - begin)) s"
	for p in $failed; do
		f=${p%%:*}
		tail -40 "$dir/$f.long${p#*:}.log"
		echo "fuzz-long: $f found a problem (its input is in $dir/$f-*)"
		exit 1
	done
done
echo "fuzz-long: $total executions of $# harnesses ($*) in $(($(date +%s) - begin)) s," \
	"$jobs process(es) of each on $(nproc) processors, no finding" \
	"($(date -u '+%Y-%m-%d %H:%M UTC'))"
