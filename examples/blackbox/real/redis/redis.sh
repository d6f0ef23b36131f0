#!/bin/sh
# redis.sh run|recover FSYNC: Redis 7 with its append-only file in $STEPFAULT_DIR.
#   run      starts redis-server (appendonly yes, appendfsync FSYNC, no RDB snapshots), sets
#            key1..key3, acknowledging each "set keyN" once SET replied OK (what a client may rely
#            on), then stops the server with SHUTDOWN NOSAVE.
#   recover  starts redis-server on the directory (it loads and, if need be, repairs the AOF as
#            its manual prescribes: aof-load-truncated yes), writes every key's value to
#            ../recovered.txt and stops it. A server that does not come up is a failed recovery.
set -u
mode=$1 fsync=$2
sock=/tmp/stepfault-redis-$$.sock
redis-server --dir "$STEPFAULT_DIR" --appendonly yes --appendfsync "$fsync" --save "" \
  --port 0 --unixsocket "$sock" --daemonize no --logfile "$STEPFAULT_DIR/../redis.log" &
server=$!
i=0
until redis-cli -s "$sock" ping >/dev/null 2>&1; do
  i=$((i + 1))
  if [ $i -gt 200 ] || ! kill -0 $server 2>/dev/null; then
    echo "redis-server did not start: $(tail -3 "$STEPFAULT_DIR/../redis.log")" >&2
    exit 1
  fi
  sleep 0.02
done
status=0
if [ "$mode" = run ]; then
  for n in 1 2 3; do
    [ "$(redis-cli -s "$sock" set key$n value$n)" = OK ] || { status=1; break; }
    echo "set key$n" >> "$STEPFAULT_ACK_FILE"
  done
else
  : > ../recovered.txt
  for n in 1 2 3; do
    echo "key$n=$(redis-cli -s "$sock" --raw get key$n)" >> ../recovered.txt
  done
fi
redis-cli -s "$sock" shutdown nosave >/dev/null 2>&1
wait $server
rm -f "$sock"
exit $status
