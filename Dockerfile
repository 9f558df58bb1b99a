# syntax=docker/dockerfile:1
# Build stage: full toolchain, compiles TypeScript to dist/, then drops dev dependencies.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bench ./bench
COPY schemas ./schemas
COPY manifests ./manifests
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# Runtime stage: Node 24 LTS slim, production dependencies only, non-root. The entrypoint is
# exec-form, so no shell is involved at run time. --max-semi-space-size=4 caps V8's young
# generation (default up to 16 MiB per semi-space): under an event burst the gateway allocates
# mostly short-lived garbage, and with the default sizing RSS grew by ~120 MiB of not-yet-collected
# young objects although the live heap stays near 40 MiB (docs/benchmarks.md). npm run bench
# reads these flags from this line and starts the gateway with them.
FROM node:24-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json ./package.json
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --from=build --chown=root:root /app/schemas ./schemas
COPY --from=build --chown=root:root /app/manifests ./manifests
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["node", "--max-semi-space-size=4", "dist/src/server.js"]
CMD ["serve", "--config", "/etc/promotion-gateway/config.yaml"]
