#!/bin/sh
# Recovery of the MAF Demo320 flow from outside, as an operator would: if the operation never became
# durable (nothing started, or the start died before its receipt), start it again (the operation id
# is derived from the draft, so it is the same operation); otherwise resume with the same decision,
# which replays a completed one and answers with the same ItemId.
d="$STEPFAULT_DIR"
m="sh $STEPFAULT_SPEC_DIR/maf.sh"
out=$($m status --dir "$d" 2>&1)
case "$out" in
  *"nothing was started"*|*"was interrupted before it published its receipt"*|*"does not exist"*)
    $m start --dir "$d" || exit 1 ;;
esac
$m resume --dir "$d" approve "looks good"
