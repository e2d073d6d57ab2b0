#!/usr/bin/env bash
# Runs every starbench test, first installing what the tests need when it
# is missing (fio for the real client/server runs on loopback, lz4 for the
# model's compression test, chromium for the report's browser test).
set -euo pipefail
cd "$(dirname "$0")"

# apt_install PACKAGE...: installs Debian packages, as root or through sudo.
apt_install() {
	local sudo=""
	if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@"
}

if ! command -v fio >/dev/null; then
	apt_install fio
fi
# lz4: the model's compression test compresses fio's buffers with it.
if ! command -v lz4 >/dev/null; then
	apt_install lz4
fi
# chromium: the report's browser test (internal/report) loads it headless.
if ! command -v chromium >/dev/null && [ -z "${CHROMIUM:-}" ]; then
	apt_install chromium
fi

unformatted="$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"
if [ -n "$unformatted" ]; then
	echo "gofmt needed on:" >&2
	echo "$unformatted" >&2
	exit 1
fi
go vet ./...
go test -count=1 -timeout 15m ./...
