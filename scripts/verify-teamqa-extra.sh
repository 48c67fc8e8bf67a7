#!/usr/bin/env bash
# Checks questions written over teamqa's sources (data/teamqa-extra/<set>/questions.jsonl) with teamqa's own
# verify.py: each set is checked against the corpus of the teamqa set of the same name.
#   scripts/verify-teamqa-extra.sh [set …]      (default: every set under data/teamqa-extra)
#   EXTRA=data/teamqa-tables scripts/verify-teamqa-extra.sh     (another folder of such sets)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TEAMQA="${TEAMQA:-$ROOT/../shared/datasets/teamqa}"
EXTRA="$(cd "${EXTRA:-$ROOT/data/teamqa-extra}" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
sets=("$@")
[ ${#sets[@]} -eq 0 ] && sets=($(ls "$EXTRA" | grep -v '\.md$'))
status=0
for s in "${sets[@]}"; do
  mkdir -p "$WORK/$s"
  ln -s "$TEAMQA/$s/corpus" "$WORK/$s/corpus"
  cp "$EXTRA/$s/questions.jsonl" "$WORK/$s/questions.jsonl"
  echo "== $s"
  python3 "$TEAMQA/verify.py" "$WORK/$s" || status=1
done
exit $status
