# Atelier in one image: the embedded mode by default (SQLite and files in the /data volume), or
# any command of the CLI (`serve --no-workers`, `worker`, `migrate`, `admin …`; see compose.yaml).
#   docker build -t atelier .
#   docker run -p 8080:8080 -v atelier-data:/data atelier
# NODE_IMAGE may point at a mirror of the official Node.js image.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
# Every native part comes prebuilt in npm packages (better-sqlite3's own prebuilds, sharp's
# @img/*, esbuild's and msgpackr's binaries, ffmpeg/ffprobe), so npm ci needs the npm registry
# only. --ignore-scripts: better-sqlite3's install script is a node-gyp run that builds nothing
# when a prebuild fits but still needs Python, which the slim image lacks; of the other scripts
# only the ffmpeg/ffprobe chmod matters, done here.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && chmod 755 node_modules/@ffmpeg-installer/linux-*/ffmpeg node_modules/@ffprobe-installer/linux-*/ffprobe

FROM deps AS build
COPY . .
# The console is built here, so the server starts without building it. The app stays root's,
# readable by all (whatever the umask of the checkout; node_modules is already).
RUN npm run -s console:build && find . -path ./node_modules -prune -o -exec chmod a+rX {} +

FROM ${NODE_IMAGE}
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY --from=build /app/package.json /app/tsconfig.json ./
COPY --from=build /app/bin bin
COPY --from=build /app/scripts/check-node.mjs scripts/
COPY --from=build /app/config config
COPY --from=build /app/src src
COPY --from=build /app/sdk sdk
COPY --from=build /app/console/dist console/dist
# `atelier …` in `docker exec`; /data belongs to the user the server runs as.
RUN ln -s /app/bin/atelier.mjs /usr/local/bin/atelier && mkdir /data && chown node:node /data
# ATELIER_CLI: how the start banner spells the admin command in this image.
ENV HOST=0.0.0.0 PORT=8080 ATELIER_DATA_DIR=/data ATELIER_CLI=atelier
USER node
VOLUME /data
EXPOSE 8080
# Liveness through Node itself (the slim image has no curl).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Node is PID 1 and handles SIGTERM itself (graceful stop of the API and the jobs).
ENTRYPOINT ["node", "/app/bin/atelier.mjs"]
CMD ["serve"]
