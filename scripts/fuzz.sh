#!/usr/bin/env bash
# fuzz.sh runs every Go fuzz target in the repository for a bounded time:
# the dataset parsers, prediction and result-file readers, gate policies
# and the answer extractors. Each target first replays its seed corpus
# (testdata/fuzz/<Target>/, also run by plain `go test`), then fuzzes for
# $FUZZTIME (default 4s). A failure leaves the failing input in the
# package's testdata/fuzz/<Target>/ (add it to the corpus once fixed) and
# makes the script exit 1 after every target has run.
#
#   scripts/fuzz.sh                  # every target, 3,000 executions each
#   FUZZTIME=1000000x scripts/fuzz.sh FuzzReadSamples   # one target, longer
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/.."
export PATH=$PATH:/usr/local/go/bin
fuzztime=${FUZZTIME:-3000x}
only=${1:-}

failed=()
n=0
while IFS=: read -r file target; do
	[[ -n "$only" && "$target" != "$only" ]] && continue
	pkg=./$(dirname "$file")
	n=$((n + 1))
	budget=$fuzztime
	# Each execution of these loads a task file and renders templates under
	# limits: a smaller default keeps the script's time in line.
	[[ -z "${FUZZTIME:-}" && "$target" == FuzzTaskFileTemplates ]] && budget=500x
	echo "== $pkg $target ($budget)"
	if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$budget" -fuzzminimizetime 2s "$pkg" 2>&1 | grep -v '^fuzz: elapsed'; then
		failed+=("$pkg $target")
	fi
done < <(git ls-files '*_test.go' | xargs grep -Ho '^func Fuzz[A-Za-z0-9_]*' | sed 's/:func /:/' | sort)

if [[ $n -eq 0 ]]; then
	echo "fuzz: no target ${only:+named $only }found" >&2
	exit 2
fi
if [[ ${#failed[@]} -gt 0 ]]; then
	echo "fuzz: ${#failed[@]} of $n targets failed:" >&2
	printf '  %s\n' "${failed[@]}" >&2
	exit 1
fi
echo "fuzz: $n targets passed"
