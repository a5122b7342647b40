#!/usr/bin/env bash
# Schema experiments, point by point: for each entry "N:name" of VARIANTS, scale.sh runs one point with WORKERS=N on a
# PostgreSQL of its own, after experiments/<name>.sql changed the freshly migrated database (PRE_SQL); "none" leaves
# it as migrated, and "a+b" runs a.sql, then b.sql. Points run in the order given, so that variants can alternate on a
# machine whose speed drifts. scale.sh's environment applies (PGROOT, COLLECTOR, SECS, LOADGENS, CONNS, PGMEM, SAMPLE,
# USERS...); no baseline. README.md: how to run.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for entry in ${VARIANTS:?entries such as "1:none 8:none 8:events-hash"}; do
  n=${entry%%:*}
  name=${entry#*:}
  if [ "$name" = none ]; then
    unset PRE_SQL
  else
    PRE_SQL=$(for part in ${name//+/ }; do cat "$here/experiments/$part.sql" || exit 1; done) || exit 1
    export PRE_SQL
  fi
  echo "== WORKERS=$n variant=$name $(date +%T)"
  NS=$n SKIP_BASE=1 bash "$here/scale.sh" | grep -v '^cores'
done
