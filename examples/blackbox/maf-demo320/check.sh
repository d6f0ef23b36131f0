#!/bin/sh
# After recovery: the checkpoint store opens and `status` succeeds, the operation is Completed with a
# StoredItem, and that ItemId is the one a run acknowledged before its fault (stable across
# recoveries). The row count and the ItemId itself are the spec's sql_checks.
d="$STEPFAULT_DIR"
out=$(sh "$STEPFAULT_SPEC_DIR/maf.sh" status --dir "$d" 2>&1) || { echo "status failed after recovery: $out"; exit 1; }
echo "$out" | grep -q '^Status: Completed$' || { echo "the operation did not complete after recovery: $out"; exit 1; }
stored=$(echo "$out" | sed -n 's/^StoredItem: //p')
[ -n "$stored" ] || { echo "status reads Completed but no StoredItem: $out"; exit 1; }
acked=$(sed -n 's/^ItemId: //p' "$STEPFAULT_ACKED" 2>/dev/null | head -n 1)
if [ -n "$acked" ] && [ "$acked" != "$stored" ]; then
  echo "the run acknowledged ItemId $acked but after recovery the stored item is $stored"; exit 1
fi
exit 0
