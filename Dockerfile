# syntax=docker/dockerfile:1
# Build stage: full install, codegen and compile.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json codegen.yml ./
COPY schema ./schema
COPY src ./src
# codegen also writes the front-ends' typed documents and the trusted-document manifest from operations/.
COPY tools/codegen ./tools/codegen
COPY operations ./operations
RUN npm run build

# Runtime stage: production dependencies only, non-root.
FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY schema ./schema
# The repo's trusted-document manifests, for TRUSTED_DOCUMENTS=operations/generated/persisted-query-manifest.json.
COPY --from=build /app/operations ./operations
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# What `npm start` runs (a test keeps them equal). Node itself is PID 1, so SIGTERM reaches the gateway's drain.
# The heap flags are node's own (NODE_OPTIONS refuses them): the old space may grow to 1.75x what the last full
# collection left, where V8 would otherwise let it grow up to 4x on a large heap, and the peak resident set with it;
# and V8's memory reducer is off, so a pause in traffic does not shrink the heap and cost the next requests a compile.
CMD ["node", "--heap-growing-percent=75", "--no-memory-reducer", "dist/src/main.js"]
