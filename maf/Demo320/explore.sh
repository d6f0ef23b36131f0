#!/bin/sh
# Black-box exploration of maf-demo320 (both checkpoint store variants) under Stepfault's recorder.
#   maf/Demo320/explore.sh [OUT] [DEPTH] [ACTIONS]     defaults: /tmp/maf-demo320-explore 1 crash,powerloss
# Needs build/bin/stepfault (`source tools/common.sh; stepfault_build release`) and the Release host
# (`dotnet build maf/Demo320 -c Release`, or MAF_DEMO320_BIN). Exit: 0 when the strict variant holds
# every explored window (the maf-json variant's violations are the expected findings, docs/findings.md),
# 1 when the strict variant is violated, 2 on bad usage or a build missing.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-/tmp/maf-demo320-explore}
depth=${2:-1}
actions=${3:-crash,powerloss}
sf="$root/build/bin/stepfault"
[ -x "$sf" ] || { echo "explore.sh: $sf is missing; build it first" >&2; exit 2; }
bin=${MAF_DEMO320_BIN:-$root/maf/artifacts/bin/Demo320/release/maf-demo320}
[ -x "$bin" ] || { echo "explore.sh: $bin is missing; run dotnet build maf/Demo320 -c Release" >&2; exit 2; }
status=0
for v in maf-json strict; do
  rm -rf "$out/$v"
  start=$(date +%s)
  "$sf" blackbox explore --spec "$root/examples/blackbox/maf-demo320/$v.json" --actions "$actions" \
    --depth "$depth" --jobs 2 --out "$out/$v"
  rc=$?
  echo "maf-demo320 $v: depth $depth, actions $actions: exit $rc in $(( $(date +%s) - start )) s; report $out/$v/summary.md"
  if [ "$v" = strict ] && [ "$rc" -ne 0 ]; then status=1; fi
  if [ "$rc" -eq 2 ]; then status=2; fi
done
exit $status
