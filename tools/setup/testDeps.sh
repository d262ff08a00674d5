#!/usr/bin/env bash
# What `npm test` needs beyond node_modules, from Debian's packages: redis-server and redis-sentinel (the Redis tests
# start real ones, a failover included), haproxy (the load balancer of the failover test), nginx (a shared cache in
# front of the gateway), curl (the docs' examples are curl commands, run as written; Debian's minimal images lack it)
# and chromium (the explorer's tests drive it headless; CHROMIUM_PATH names another binary). Installs whichever is missing with
# apt-get, as root or through password-less sudo. When it cannot, it stops within 10 s with one line naming the
# command to run, so a run never starts only to fail dozens of tests.
set -uo pipefail

chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
missing=()
for tool in redis-server redis-sentinel haproxy nginx curl; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[ -x "$chromium" ] || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0

# Stops the run: one line on standard error, naming what is missing, why, and the command that installs it.
sudo_="sudo "
refuse() {
  echo "npm test needs ${missing[*]} and cannot install it ($1): run  ${sudo_}apt-get update && ${sudo_}apt-get install -y ${missing[*]}" >&2
  exit 1
}

command -v apt-get >/dev/null 2>&1 || refuse "no apt-get here"
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
  sudo_=""
elif command -v sudo >/dev/null 2>&1 && timeout 5 sudo -n true >/dev/null 2>&1; then
  as_root=(sudo -n)
else
  refuse "not root, and sudo asks for a password"
fi

export DEBIAN_FRONTEND=noninteractive
# Installing may take minutes; a hung apt still ends: a mirror silent for 10 s fails its fetch, a held dpkg lock fails
# at once, and the whole step has a ceiling.
apt=(${as_root[@]+"${as_root[@]}"} apt-get -qq -o DPkg::Lock::Timeout=0 -o Acquire::Retries=0 -o Acquire::http::Timeout=10 -o Acquire::https::Timeout=10)
timeout 300 "${apt[@]}" update >/dev/null || refuse "apt-get update failed"
timeout 900 "${apt[@]}" install -y "${missing[@]}" >/dev/null || refuse "apt-get install failed"

still=()
for tool in "${missing[@]}"; do
  [ "$tool" = chromium ] && continue
  command -v "$tool" >/dev/null 2>&1 || still+=("$tool")
done
[ -x "$chromium" ] || still+=(chromium)
if [ ${#still[@]} -gt 0 ]; then
  missing=("${still[@]}")
  refuse "apt-get installed it but it is not at $chromium or on PATH"
fi
