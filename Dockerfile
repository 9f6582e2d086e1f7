# Effectively Once: one image, no network needed at run time.
# Stage 1 fetches the pinned front-end libraries with npm and bundles the editor; stage 2 generates
# templates, tests and builds a static binary; the final stage is distroless and runs as a non-root
# user.

FROM node:20-bookworm-slim AS assets
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --omit=dev --loglevel=error
COPY scripts/assets.sh scripts/assets.sh
COPY static/editor static/editor
RUN sh scripts/assets.sh

FROM golang:1.26-bookworm AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOFLAGS=-trimpath
COPY go.mod go.sum ./
RUN go mod download
COPY . .
COPY --from=assets /src/static/lib static/lib
RUN go tool templ generate \
 && go vet ./... \
 && go test ./experiments ./content ./pages \
 && go build -ldflags="-s -w" -o /out/site ./cmd/site \
 && /out/site verify \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/site /site
# The study rooms' SQLite file; owned by distroless's nonroot user (65532), which runs the site.
COPY --from=build --chown=65532:65532 /out/data /data
ENV ADDR=0.0.0.0:8080 DATA_DIR=/data
VOLUME /data
EXPOSE 8080
USER nonroot:nonroot
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["/site", "healthcheck"]
ENTRYPOINT ["/site"]
CMD ["serve"]
