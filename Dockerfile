# Builds the taskgov server image: a static binary on distroless.
# (Not built in CI: the build machines have no container engine.)
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /taskgov ./cmd/taskgov

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /taskgov /taskgov
USER nonroot
ENTRYPOINT ["/taskgov"]
