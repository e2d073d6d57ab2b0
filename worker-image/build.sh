#!/bin/sh
# Builds the starbench worker template from Ubuntu's 22.04 cloud image
# (an OVA) with cloud-init, on the vCenter the GOVC_* variables name.
# Needs govc, jq, curl and base64. Nothing is downloaded into the repository.
#
#   GOVC_URL=... GOVC_USERNAME=... GOVC_PASSWORD=... GOVC_DATASTORE=vsanDatastore \
#   GOVC_NETWORK="VM Network" worker-image/build.sh
#   starbench worker check --template starbench-worker-template --trial
set -eu

OVA_URL=${OVA_URL:-https://cloud-images.ubuntu.com/releases/jammy/release/ubuntu-22.04-server-cloudimg-amd64.ova}
NAME=${NAME:-starbench-worker-template}
# The fio release of the machine running starbench ("fio --version").
FIO_VERSION=${FIO_VERSION:-$(fio --version 2>/dev/null || echo fio-3.33)}
BUILD_TIMEOUT=${BUILD_TIMEOUT:-1800}

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build="$NAME-build"

echo "downloading $OVA_URL"
curl -fL --retry 3 -o "$work/base.ova" "$OVA_URL"

sed "s/@FIO_VERSION@/$FIO_VERSION/" "$here/user-data.yaml" >"$work/user-data"
govc import.spec "$work/base.ova" |
	jq --arg ud "$(base64 -w0 <"$work/user-data")" --arg net "${GOVC_NETWORK:-VM Network}" '
		.PropertyMapping |= map(if .Key == "user-data" then .Value = $ud
			elif .Key == "hostname" then .Value = "starbench-worker" else . end)
		| .NetworkMapping[0].Network = $net
		| .PowerOn = false | .MarkAsTemplate = false | .DiskProvisioning = "thin"' >"$work/spec.json"

echo "importing as $build"
govc import.ova -options="$work/spec.json" -name "$build" "$work/base.ova"
govc vm.change -vm "$build" -c 2 -m 4096
govc vm.power -on "$build"

echo "waiting for cloud-init to build fio $FIO_VERSION and power the VM off (at most ${BUILD_TIMEOUT}s)"
waited=0
until [ "$(govc object.collect -s "vm/$build" runtime.powerState)" = poweredOff ]; do
	if [ "$waited" -ge "$BUILD_TIMEOUT" ]; then
		echo "$build is still running after ${BUILD_TIMEOUT}s: look at its console (cloud-init's log)" >&2
		exit 1
	fi
	sleep 15
	waited=$((waited + 15))
done

govc vm.markastemplate "$build"
govc object.rename "vm/$build" "$NAME"
echo "template $NAME is ready; check it with: starbench worker check --template $NAME --trial"
