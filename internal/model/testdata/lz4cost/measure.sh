#!/bin/sh
# Measures what liblz4 costs on fio's buffers, block kind by block kind,
# and prints measured.csv: fio 3.33 writes 64 MiB of each kind, lz4cost
# compresses and decompresses it 4 KiB block by block. Needs fio, gcc and
# liblz4.so.1 (Debian: fio gcc liblz4-1). Run it on an idle machine.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -o "$work/lz4cost" "$here/lz4cost.c" /usr/lib/x86_64-linux-gnu/liblz4.so.1
echo "set,pct,chunk,compress_cycles_per_byte,decompress_cycles_per_byte,kept"
# set: "fit" rows give lz4_block_cycles and lz4_attempt_cycles, "held"
# rows only check them. pct 100 is zero_buffers.
while read -r set pct chunk; do
	case $pct in
	100) data="--zero_buffers" ;;
	*) data="--buffer_compress_percentage=$pct --buffer_compress_chunk=$chunk --refill_buffers" ;;
	esac
	# shellcheck disable=SC2086 # $data is several options
	fio --name=w --filename="$work/data" --rw=write --bs=4k --size=64m --ioengine=psync $data --output=/dev/null
	echo "$set,$pct,$chunk,$("$work/lz4cost" "$work/data")"
	rm -f "$work/data"
done <<'KINDS'
fit 0 512
fit 100 512
fit 25 512
fit 50 512
fit 75 512
fit 50 1024
fit 50 2048
fit 50 4096
held 10 512
held 90 512
held 50 256
held 25 4096
held 75 1024
held 60 2048
KINDS
