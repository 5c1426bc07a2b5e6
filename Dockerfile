# Atelier without a local Node.js: a multi-stage build on a pinned Node.js LTS base (Debian slim,
# glibc: better-sqlite3 and sharp load their prebuilt binaries, no compiler needed). The image runs
# as the unprivileged `node` user, keeps its state in the /data volume and checks /healthz.
#   docker build -t atelier .
#   docker run -p 8080:8080 -v atelier-data:/data atelier
ARG NODE_VERSION=24.21.0

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim
# MALLOC_ARENA_MAX=2: glibc keeps one malloc arena per thread that allocates (libvips', libuv's),
# up to 8 per core, and image work leaves each fragmented; two arenas hold RSS ~150 MB lower under
# mixed traffic (docs/benchmarks.md, M1).
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    ATELIER_DATA_DIR=/data \
    MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
# bin/atelier runs the built JavaScript in dist/ (current: the build wrote dist/.build-stamp after
# package.json); it needs scripts/ensure-build.mjs for that check, and no sources.
COPY --from=build /app/bin ./bin
COPY --from=build /app/scripts/ensure-build.mjs ./scripts/
COPY --from=build /app/catalogs ./catalogs
RUN mkdir -p /data && chown node:node /data && ln -s /app/bin/atelier /usr/local/bin/atelier
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/src/server.js"]
