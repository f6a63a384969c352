# ecocompute in a container, like the original EcoCompute's image: one command measures one model at
# one precision against its FP16 baseline and writes energy.json. Two stages: `build` compiles the
# binary from Debian's packages; `runtime` holds the binary and the shared libraries it loads.
#
#   podman build -t ecocompute .                     # or docker build; docs/container.md
#   podman run --rm -v "$PWD/out:/workspace/outputs" ecocompute \
#       --model Qwen/Qwen2-0.5B --precision INT8 --output_dir /workspace/outputs
#
# BASE is the image both stages start from: a Debian 12 image from a registry by default, any
# Debian-format image with the same packages otherwise (a local debootstrap image; for the CUDA
# engine, a CUDA development image: docs/container.md). BINARY=prebuilt takes the binary staged
# under build/container/ (scripts/container-image.sh --prebuilt) instead of compiling it.
ARG BASE=debian:bookworm-slim
ARG BINARY=compiled

FROM ${BASE} AS build
ARG EC_BUILD_COMMIT=unknown
ENV DEBIAN_FRONTEND=noninteractive
WORKDIR /src
# The dependency list first, so that a source change does not reinstall the packages.
COPY scripts/install-deps.sh scripts/install-deps.sh
RUN scripts/install-deps.sh run && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake --preset default -DEC_BUILD_TESTS=OFF -DEC_BUILD_BENCH=OFF \
 && EC_BUILD_COMMIT="${EC_BUILD_COMMIT}" cmake --build --preset default --target ecocompute \
 && scripts/collect-runtime-libs.sh build/default/bin/ecocompute /opt/ecocompute

FROM build AS compiled

FROM scratch AS prebuilt
COPY build/container/opt/ecocompute /opt/ecocompute

FROM ${BINARY} AS binary

FROM ${BASE} AS runtime
COPY --from=binary /opt/ecocompute /opt/ecocompute
ENV PATH=/opt/ecocompute/bin:${PATH} \
    LD_LIBRARY_PATH=/opt/ecocompute/lib
WORKDIR /workspace
# The original's entry point and default task: `energy_estimate` with its defaults; its options
# (--model, --precision, --output_dir, --parameters_file, ...) and ecocompute's own commands
# (`run`, `info`, `validate`, ...) both work as arguments.
ENTRYPOINT ["ecocompute"]
CMD ["energy_estimate"]
