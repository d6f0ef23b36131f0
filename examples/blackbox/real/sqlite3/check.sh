#!/bin/sh
# The promise of a SQLite commit, checked from outside: every transaction the workload acknowledged
# ("committed N" on stdout, in $STEPFAULT_ACKED) is in app.db after recovery, and no row the
# workload never wrote is there. Prints which commit was lost.
db="$STEPFAULT_DIR/app.db"
rows=$(sqlite3 "$db" "SELECT id FROM t ORDER BY id") || { echo "app.db cannot be read"; exit 1; }
for n in $(sed -n 's/^committed \([0-9]*\)$/\1/p' "$STEPFAULT_ACKED"); do
  if ! printf '%s\n' "$rows" | grep -qx "$n"; then
    echo "commit $n was acknowledged but is lost after recovery (rows present: $(echo $rows))"
    exit 1
  fi
done
for r in $rows; do
  case "$r" in 1|2|3) ;; *) echo "row $r was never written"; exit 1 ;; esac
done
exit 0
