# syntax=docker/dockerfile:1
# The broker flight gateway as a container: docs/deployment.md explains every setting.
# test/app/container-recipe.test.ts performs these steps without a container engine (clean copy,
# production-only install, this image's command and environment) and checks that the service serves.

# Build stage: every dependency (the embedded development engine, packages/, included: the
# benchmarks compiled with the service import it), then the TypeScript build (dist/ and its stamp),
# which does not contain the engine.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages ./packages
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY rest-facade ./rest-facade
COPY bench ./bench
RUN npm run build

# Runtime stage: production dependencies only (no workspace: the embedded engine is development
# only, docs/deployment.md), the build, an unprivileged user.
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --workspaces=false --no-audit --no-fund
COPY scripts/start.cjs scripts/v8-flags.json ./scripts/
COPY --from=build /app/dist ./dist
USER node
EXPOSE 4000
# Ready = the process answers and its database answers a ping (a 503 while it is down or draining).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The production command: the stamped build with the service's V8 flags, never a compile. Run as
# node's own PID-1-safe process (not through npm) so SIGTERM reaches the graceful drain.
CMD ["node", "scripts/start.cjs", "--prebuilt"]
