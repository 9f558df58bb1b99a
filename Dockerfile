# syntax=docker/dockerfile:1
# The runtime image carries the gateway only: its bundle (dist/server.js and dist/chunks/), its JSON schemas, the web
# view's static files (web/) and its production dependencies. The simulator, the demo, the benchmarks, the manifests and npm's
# cache stay out (npm ci --workspaces=false installs the root package alone).

# Build stage: the toolchain compiles src/ to dist/modules/ and bundles that into dist/server.js
# (esbuild.config.js: the client library's code the gateway uses, not its whole generated API).
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --workspaces=false --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json esbuild.config.js ./
COPY src ./src
COPY schemas ./schemas
COPY web ./web
RUN npm run build

# Dependencies stage: production dependencies of the gateway, nothing else.
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --workspaces=false --no-audit --no-fund

# Runtime stage: Node 24 LTS slim, non-root. The entrypoint is exec-form, so no shell is
# involved at run time. --max-semi-space-size=4 caps V8's young generation (default up to
# 16 MiB per semi-space): under an event burst the gateway allocates mostly short-lived garbage,
# and with the default sizing RSS grew by ~120 MiB of not-yet-collected young objects although
# the live heap stays near 40 MiB (docs/benchmarks.md). npm run bench reads these flags from
# this line and starts the gateway with them.
FROM node:24-slim AS runtime
LABEL org.opencontainers.image.title="promotion-gateway" \
      org.opencontainers.image.description="Promotes applications through Flux GitOps environments from state it verifies itself." \
      org.opencontainers.image.licenses="Apache-2.0"
ENV NODE_ENV=production
# glibc's allocator as a long-running Node process wants it (measured in docs/benchmarks.md): two
# arenas, not one per thread that ever allocated (about 25 MiB resident for nothing), and a fixed
# mmap threshold, so large buffers (a LIST page's 1 MiB answer) go back to the kernel when freed
# instead of raising the threshold and staying in the heap. npm run bench applies these too.
ENV MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=131072 \
    MALLOC_TRIM_THRESHOLD_=1048576
WORKDIR /app
COPY --from=deps --chown=root:root /app/package.json ./package.json
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
# The bundle alone (and its maps): dist/modules/, the compiler's output it was made from, and the
# library's entry (dist/index.js, for the demo and the benchmarks) stay out.
COPY --from=build --chown=root:root /app/dist/server.js /app/dist/server.js.map ./dist/
COPY --from=build --chown=root:root /app/dist/chunks ./dist/chunks
COPY --from=build --chown=root:root /app/schemas ./schemas
COPY --from=build --chown=root:root /app/web ./web
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["node", "--max-semi-space-size=4", "dist/server.js"]
CMD ["serve", "--config", "/etc/promotion-gateway/config.yaml"]
