# txbench in a container: `scripts/image.sh` builds it with Docker, podman or
# buildah, with or without a registry (docs/distributed.md); by hand,
# `docker build -t txbench . && docker run --rm txbench tpcc`. The image
# docs/k8s/tpcc-shards.yaml runs: Debian's slim image (glibc, and a shell for
# the merge Job's script; TLS roots are compiled in), txbench built with the
# `dist` profile (no debug information, stripped) and the etcd engine, run as
# the unprivileged user 10001.
#
# Stages, in the order a `--target` stops at:
#   base     the runtime without txbench
#   runtime  base + a txbench built on the host: the build context is a
#            directory holding only the binary (`scripts/image.sh prebuilt`)
#   build    Rust's image compiling txbench from the repository
#   (last)   base + the build stage's txbench: the default image

FROM debian:bookworm-slim AS base
RUN groupadd --system --gid 10001 txbench \
    && useradd --system --uid 10001 --gid 10001 --home-dir /work --create-home txbench
USER 10001:10001
WORKDIR /work
ENTRYPOINT ["txbench"]
CMD ["tpcc"]

FROM base AS runtime
COPY txbench /usr/local/bin/txbench

FROM rust:1-bookworm AS build
# protoc: the etcd engine compiles etcd's protocol, which imports protobuf's
# own types (google/protobuf/*.proto: libprotobuf-dev, only recommended by
# protobuf-compiler, so not installed without it).
RUN apt-get update -q && apt-get install -y -q --no-install-recommends protobuf-compiler libprotobuf-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cargo build --profile dist --locked -p txbench --features etcd \
    && cp target/dist/txbench /usr/local/bin/txbench

FROM base
COPY --from=build /usr/local/bin/txbench /usr/local/bin/txbench
