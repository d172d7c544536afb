# txbench in a container: `docker build -t txbench . && docker run --rm txbench tpcc`.
# The image docs/k8s/tpcc-shards.yaml runs. Two stages: the build (Rust's
# image, the `dist` profile: no debug information, stripped) and a small
# Debian runtime (glibc and a shell for the merge Job's script; TLS roots are
# compiled in) that runs as an unprivileged user.

FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --profile dist --locked -p txbench \
    && cp target/dist/txbench /usr/local/bin/txbench

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --user-group --home-dir /work --create-home txbench
COPY --from=build /usr/local/bin/txbench /usr/local/bin/txbench
USER 10001:10001
WORKDIR /work
ENTRYPOINT ["txbench"]
CMD ["tpcc"]
