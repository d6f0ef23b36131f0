#!/bin/sh
# The environment opens (mdb_stat) and every acknowledged key is in it with its value. Before the
# first acknowledgement the environment may not exist yet (mdb_load had not created data.mdb).
acked=$(sed -n 's/^loaded //p' "$STEPFAULT_ACKED")
if [ -z "$acked" ] && [ ! -s "$STEPFAULT_DIR/data.mdb" ]; then exit 0; fi
mdb_stat "$STEPFAULT_DIR" >/dev/null 2>&1 || { echo "mdb_stat cannot open the environment"; exit 1; }
dump=$(mdb_dump -p "$STEPFAULT_DIR" 2>&1) || { echo "mdb_dump fails: $dump"; exit 1; }
for k in $acked; do
  echo "$dump" | grep -qx " $k" || { echo "acknowledged key $k is lost"; exit 1; }
done
