#!/bin/sh
# Installs Debian's chromium for the browser tests when it is missing. CI runs as root on Debian;
# elsewhere, without root, it says what to do and the browser tests skip (outside CI).
set -eu
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
	exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
	echo "installing chromium for the browser tests (apt-get)"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
	exit 0
fi
echo "chromium is not installed: the browser tests will be skipped (install Debian's chromium to run them)"
