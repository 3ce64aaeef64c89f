# The drasim image: the drasim binary as the entrypoint, for `drasim sweep job`
# (docs/sweeps.md) and anyone who runs drasim in a container.
#
#   docker build -t registry.example.com/drasim:dev .
#   docker run --rm registry.example.com/drasim:dev simulate
#
# The binary is static (no cgo), the runtime image distroless and nonroot:
# the Job that drasim sweep job writes runs it as user 65532 with a read-only
# root filesystem, writing only to its results volume.

FROM golang:1.26 AS build
WORKDIR /src
# Modules first, so that a change to the sources reuses the download layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/drasim ./cmd/drasim

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/drasim /usr/local/bin/drasim
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/drasim"]
