#!/bin/sh
# Every key whose SET was acknowledged has its value after recovery.
for k in $(sed -n 's/^set //p' "$STEPFAULT_ACKED"); do
  grep -qx "$k=value${k#key}" ../recovered.txt 2>/dev/null ||
    { echo "acknowledged SET of $k is lost ($(grep "^$k=" ../recovered.txt))"; exit 1; }
done
