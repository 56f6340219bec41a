# Multi-stage build of the single Threadlink executable.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home-dir /data threadlink \
  && mkdir -p /data && chown threadlink /data
COPY --from=build /src/dist/threadlink /usr/local/bin/threadlink
USER threadlink
ENV DATA_DIR=/data HOST=0.0.0.0 PORT=3000
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s \
  CMD ["threadlink", "healthcheck"]
ENTRYPOINT ["threadlink"]
CMD ["serve"]
