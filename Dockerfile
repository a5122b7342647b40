# The collector as a container image (README, "Docker").
#
#   docker build -t collector .
#   docker run --init -p 3100:3100 -v collector-data:/data collector              # embedded PostgreSQL in /data
#   docker run --init -p 3100:3100 -e DATABASE_URL=postgres://... collector       # a PostgreSQL server of yours
#
# Two stages: the build stage installs the workspace from the lockfile and builds the dashboard and the bundle; the
# runtime stage holds only what services/collector/scripts/deploy.mjs copies out of it (the bundle, its production
# dependencies, the dashboard's dist). CI builds no image: services/collector/test/bundle.test.ts runs such a copy.

ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /usr/src/collector
ENV CI=true
# The pnpm of package.json's packageManager field.
COPY package.json ./
RUN npm install --global --no-fund --no-audit "$(node -p "require('./package.json').packageManager")"
# Packages first, from the lockfile alone: a layer that source changes do not invalidate.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile --offline \
  && pnpm build \
  && node services/collector/scripts/deploy.mjs /opt/collector

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
  PORT=3100 \
  DATA_DIR=/data
# Owned by root, read-only to the account the collector runs as. /app/collector/dist/main.mjs serves the dashboard
# from /app/dashboard/dist.
COPY --from=build /opt/collector /app
# An ordinary account (the image's `node`): the embedded PostgreSQL server refuses root, and runs as the collector's
# own account when that is not root. DATA_DIR is the one place it writes.
RUN mkdir -p /data && chown node:node /data
USER node
WORKDIR /app/collector
VOLUME /data
EXPOSE 3100
# Slim images have no curl: node asks /readyz, which answers 200 once the database is reachable and migrated.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3100) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Plain node as `pnpm start` runs the bundle (1 GiB heap, the figure INGEST_MAX_IN_FLIGHT_BYTES is set for); SIGTERM
# (docker stop) finishes in-flight requests and stops the embedded server.
CMD ["node", "--max-old-space-size=1024", "--max-semi-space-size=32", "dist/main.mjs"]
