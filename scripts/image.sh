#!/usr/bin/env bash
# Builds txbench's container image from the repository's Dockerfile, with
# Docker, podman or buildah, with or without an image registry.
#
#   scripts/image.sh [auto|full|prebuilt|base] [TAG]  (default: auto txbench:latest)
#
#   full      the Dockerfile's two stages: Rust's image compiles txbench;
#             where it cannot be pulled, an equivalent is made from the
#             Debian base and this machine's Rust toolchain (rustup's)
#   prebuilt  the `runtime` stage around a txbench built here with the `dist`
#             profile (and the etcd engine: needs protoc), for a machine that
#             cannot pull Rust's image; the binary needs a glibc no newer
#             than Debian bookworm's (2.36), so build it on bookworm or older
#   auto      full where Rust's image is here or can be pulled, else prebuilt
#   rust      only that equivalent of Rust's image, for a build by hand
#   base      only the Debian base below, for a build by hand
#
# The Debian base (debian:bookworm-slim) is pulled, or, where no registry
# answers, made from Debian's packages with debootstrap and imported.
#
# TOOL=docker|podman|buildah picks the tool (default: the first that works).
# podman and buildah build with `--isolation chroot` (ISOLATION= to change):
# it needs neither a runtime's cgroups nor user namespaces.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-auto}
tag=${2:-txbench:latest}
base=debian:bookworm-slim
rust=rust:1-bookworm
case $mode in
auto | full | prebuilt | base | rust) ;;
*) echo "image.sh: mode '$mode' is not auto, full, prebuilt, base or rust" >&2 && exit 2 ;;
esac

die() { echo "image.sh: $*" >&2 && exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tool=${TOOL:-}
if [ -z "$tool" ]; then
    for t in docker podman buildah; do
        command -v "$t" >/dev/null || continue
        # A docker client without a daemon cannot build.
        [ "$t" != docker ] || docker info >/dev/null 2>&1 || continue
        tool=$t && break
    done
fi
[ -n "$tool" ] || die "no docker, podman or buildah here (Debian: apt-get install podman)"
isolation=${ISOLATION-chroot}

build() {
    case $tool in
    docker) docker build "$@" ;;
    podman) podman build ${isolation:+--isolation "$isolation"} "$@" ;;
    buildah) buildah build ${isolation:+--isolation "$isolation"} "$@" ;;
    esac
}

have() {
    case $tool in
    docker) docker image inspect "$1" ;;
    podman) podman image exists "$1" ;;
    buildah) buildah inspect --type image "$1" ;;
    esac >/dev/null 2>&1
}

# A pull that gives up within a minute where no registry answers.
pull() {
    echo "image.sh: pulling $1" >&2
    timeout 60 "$tool" pull -q "docker.io/library/$1" >/dev/null 2>&1
}

# The base image from Debian's packages, under the name the Dockerfile uses.
import_base() {
    command -v debootstrap >/dev/null \
        || die "$base cannot be pulled and debootstrap is missing (apt-get install debootstrap)"
    local root=$work/base
    echo "image.sh: $base cannot be pulled: making it from Debian's packages (debootstrap)" >&2
    debootstrap --variant=minbase bookworm "$root/fs" http://deb.debian.org/debian >/dev/null
    # What Debian's slim image leaves out too: the downloaded packages, the
    # package lists, documentation and translations.
    rm -rf "$root/fs"/var/cache/apt/archives/*.deb "$root/fs"/var/lib/apt/lists/* \
        "$root/fs"/usr/share/{doc,man,info,locale}/*
    tar -C "$root/fs" -cf "$root/fs.tar" .
    case $tool in
    docker) docker import "$root/fs.tar" "$base" >/dev/null ;;
    podman) podman import -q "$root/fs.tar" "localhost/$base" >/dev/null ;;
    buildah)
        local c
        c=$(buildah from scratch)
        buildah add -q "$c" "$root/fs.tar" / >/dev/null
        buildah commit -q "$c" "localhost/$base" >/dev/null
        buildah rm "$c" >/dev/null
        ;;
    esac
}

# Rust's image made locally: the Debian base with what Rust's image adds for
# building (a C toolchain, certificates, pkg-config) and this machine's
# toolchain (rustc, cargo, the standard library) under /usr/local, as
# Rust's image has it, and the certificate authorities this machine adds
# (/usr/local/share/ca-certificates: a proxy that inspects TLS, as here,
# signs crates.io's certificate with one of its own). Only for a machine whose
# toolchain runs on bookworm's glibc (rustup's do: they need 2.17).
make_rust() {
    command -v rustc >/dev/null \
        || die "$rust cannot be pulled and there is no Rust toolchain here to make it from: use prebuilt"
    local sysroot context=$work/rust
    sysroot=$(rustc --print sysroot)
    echo "image.sh: $rust cannot be pulled: making it from the base and this machine's $(rustc --version)" >&2
    mkdir -p "$context/bin"
    # The toolchain's own binaries: those on PATH may be rustup's proxies.
    cp "$sysroot"/bin/{rustc,rustdoc,cargo} "$context/bin/"
    cp -a "$sysroot/lib" "$context/lib"
    mkdir "$context/ca"
    cp /usr/local/share/ca-certificates/*.crt "$context/ca/" 2>/dev/null || true
    cat >"$context/Dockerfile" <<EOF
FROM $base
RUN apt-get update -q && apt-get install -y -q --no-install-recommends \\
        gcc libc6-dev ca-certificates pkg-config \\
    && rm -rf /var/lib/apt/lists/*
COPY ca /usr/local/share/ca-certificates
RUN update-ca-certificates >/dev/null
COPY bin /usr/local/bin
COPY lib /usr/local/lib
ENV CARGO_HOME=/usr/local/cargo PATH=/usr/local/cargo/bin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
EOF
    build -t "$rust" -f "$context/Dockerfile" "$context"
}

have "$base" || pull "$base" || import_base
[ "$mode" != base ] || exit 0
if [ "$mode" = rust ]; then
    have "$rust" || pull "$rust" || make_rust
    exit 0
fi

# Rust's image, asked for once: full needs it, auto takes it where it is.
if [ "$mode" != prebuilt ]; then
    if have "$rust" || pull "$rust"; then
        mode=full
    elif [ "$mode" = full ]; then
        make_rust
    else
        mode=prebuilt
    fi
    echo "image.sh: building the $mode image" >&2
fi

if [ "$mode" = full ]; then
    build -t "$tag" -f Dockerfile .
else
    glibc=$(ldd --version 2>/dev/null | head -1 | grep -o '[0-9]*\.[0-9]*$' || true)
    if [ -n "$glibc" ] && [ "$(printf '%s\n2.36\n' "$glibc" | sort -V | tail -1)" != 2.36 ]; then
        die "this machine's glibc $glibc is newer than bookworm's 2.36: its binary would not run in the image (build on bookworm, or use full)"
    fi
    cargo build --profile dist --locked -p txbench --features etcd
    context=$work/context
    mkdir "$context"
    cp target/dist/txbench "$context/"
    build -t "$tag" -f Dockerfile --target runtime "$context"
fi
echo "image.sh: built $tag ($tool, $mode)" >&2
