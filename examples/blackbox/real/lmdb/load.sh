#!/bin/sh
# One LMDB write transaction with mdb_load (lmdb-utils): key$1 -> value$1 into the environment
# $STEPFAULT_DIR, acknowledged "loaded key$1" once mdb_load returned (it commits before it exits;
# LMDB syncs the data file, then writes the meta page through an O_DSYNC descriptor).
set -e
printf 'key%s\nvalue%s\n' "$1" "$1" | mdb_load -T "$STEPFAULT_DIR"
echo "loaded key$1" >> "$STEPFAULT_ACK_FILE"
