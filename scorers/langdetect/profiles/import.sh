#!/bin/sh
# import.sh rebuilds profiles.tar.gz and PROVENANCE.json from an installed
# Debian python3-langdetect (apt-get install python3-langdetect): the 55
# language profiles and messages.properties, byte for byte, in a
# reproducible gzip'd tar (sorted names, fixed owner, mode and mtime).
set -eu
src=${1:-/usr/lib/python3/dist-packages/langdetect}
here=$(cd "$(dirname "$0")" && pwd)
version=$(dpkg-query -W -f='${Version}' python3-langdetect)
deb=$(apt-cache show "python3-langdetect=$version" | sed -n 's/^Filename: //p' | head -1)
debsum=$(apt-cache show "python3-langdetect=$version" | sed -n 's/^SHA256: //p' | head -1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/profiles"
cp "$src"/profiles/* "$tmp/profiles/"
cp "$src/utils/messages.properties" "$tmp/"
(cd "$tmp" && tar --sort=name --owner=0 --group=0 --numeric-owner --mode=0644 --mtime=@0 \
	-cf - messages.properties profiles) | gzip -9n > "$here/profiles.tar.gz"
{
	printf '{\n  "package": "python3-langdetect",\n  "version": "%s",\n' "$version"
	printf '  "upstream": "https://github.com/Mimino666/langdetect (langdetect 1.0.9, a port of Cybozu Labs language-detection)",\n'
	printf '  "debian_package": "%s",\n  "debian_package_sha256": "%s",\n' "$deb" "$debsum"
	printf '  "license": "Apache-2.0",\n  "source_dir": "%s",\n  "files": {\n' "$src"
	(cd "$tmp" && find messages.properties profiles -type f | sort | while read -r f; do
		printf '    "%s": "%s",\n' "$f" "$(sha256sum "$f" | cut -d' ' -f1)"
	done) | sed '$ s/,$//'
	printf '  }\n}\n'
} > "$here/PROVENANCE.json"
