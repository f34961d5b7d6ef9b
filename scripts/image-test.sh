#!/usr/bin/env bash
# Builds the Containerfile with podman and proves what the image promises: it runs as an
# unprivileged user with node as PID 1, answers /healthz, /readyz, its HEALTHCHECK and the API,
# stops gracefully on SIGTERM (the `stopping` and `stopped` lines, exit code 0), and a new container
# on the same volume finds the data and the keys. `npm run image:test`; not part of `npm test`.
#
# STRATUM_BASE_IMAGE  base of both stages (default: the official docker.io/library/node:20-bookworm-slim;
#                     where no registry is reachable, scripts/base-image.sh makes a stand-in, which is
#                     used when the official image cannot be had)
# STRATUM_BUILD_CA    a CA bundle for a TLS-inspecting proxy in front of the npm registry, passed as a
#                     build secret (default: $NODE_EXTRA_CA_CERTS when set)
# STRATUM_IMAGE       the tag to build (default localhost/stratum:image-test)
# STRATUM_IMAGE_TEST_KEEP=1 keeps the volume after the run
set -euo pipefail
cd "$(dirname "$0")/.."

official=docker.io/library/node:20-bookworm-slim
standin=localhost/stratum-base/node:20-bookworm-slim
image=${STRATUM_IMAGE:-localhost/stratum:image-test}
name=stratum-image-test-$$
volume=stratum-image-test-$$
proved=()

say() { echo "image-test: $*"; }
fail() {
  echo "image-test: FAILED: $*" >&2
  [ -n "${podman:-}" ] && $podman logs "$name" 2>/dev/null | tail -n 20 >&2
  exit 1
}
prove() {
  proved+=("$1")
  say "ok - $1"
}

command -v podman >/dev/null || fail "podman is missing: apt-get install -y podman (or buildah and podman)"
command -v curl >/dev/null || fail "curl is missing"

# The base: the one asked for, else the official image (pulled when absent), else the stand-in.
base=${STRATUM_BASE_IMAGE:-}
if [ -z "$base" ]; then
  if podman image exists "$official" || timeout 120 podman pull -q "$official" >/dev/null 2>&1; then
    base=$official
  elif podman image exists "$standin"; then
    base=$standin
    say "the official Node image cannot be pulled (no registry reachable): using $standin from scripts/base-image.sh"
  else
    fail "neither $official (pull failed) nor $standin exists: run scripts/base-image.sh, or set STRATUM_BASE_IMAGE"
  fi
fi
podman image exists "$base" || fail "the base image $base does not exist"
say "base image: $base"

# Can a container run with podman's defaults? Where it cannot, say why and use what works here.
podman="podman"
run_flags=()
if ! why=$(timeout 120 podman run --rm "$base" true 2>&1); then
  say "a container does not start with podman's defaults: ${why##*Error: }"
  # A sandbox without CAP_SYS_RESOURCE cannot raise the rlimits podman asks for (1048576 open
  # files), and crun refuses a hybrid cgroup v1/v2 hierarchy: keep the current limits and let runc
  # manage cgroup v1 through cgroupfs. Podman starts the runtime with at most 32768 processes.
  nproc=$(awk '/^Max processes/ {print ($4 == "unlimited" || $4 > 32768) ? 32768 : $4}' /proc/self/limits)
  nofile=$(ulimit -Hn)
  podman="podman --runtime runc --cgroup-manager cgroupfs"
  run_flags=(--ulimit "nofile=$nofile:$nofile" --ulimit "nproc=$nproc:$nproc")
  command -v runc >/dev/null || fail "runc is missing (apt-get install -y runc), and containers do not start without it here"
  why=$(timeout 120 $podman run --rm "${run_flags[@]}" "$base" true 2>&1) ||
    fail "containers cannot run on this machine even with runc and cgroupfs: ${why##*Error: }"
  say "containers run with: $podman ${run_flags[*]}"
fi

version=$(node -p "require('./package.json').version")
build_args=(--build-arg "NODE_IMAGE=$base" --build-arg "VERSION=$version"
  --build-arg "REVISION=$(git rev-parse HEAD 2>/dev/null || echo unknown)"
  --build-arg "SOURCE=$(git remote get-url origin 2>/dev/null || echo)")
ca=${STRATUM_BUILD_CA:-${NODE_EXTRA_CA_CERTS:-}}
[ -n "$ca" ] && [ -f "$ca" ] && build_args+=(--secret "id=ca,src=$ca")
say "building $image (a first build compiles better-sqlite3: minutes)"
started=$(date +%s)
# The build's RUN steps share the host's network: podman's bridge is not needed to reach the registries.
$podman build --format docker --network host "${run_flags[@]}" "${build_args[@]}" -t "$image" -f Containerfile . \
  >/tmp/stratum-image-build.log 2>&1 || { tail -n 30 /tmp/stratum-image-build.log >&2; fail "the build failed (log: /tmp/stratum-image-build.log)"; }
prove "built $image from Containerfile in $(($(date +%s) - started)) s ($(podman image inspect --format '{{.Size}}' "$image") bytes)"

inspect() { podman image inspect --format "$1" "$image"; }
[ "$(inspect '{{.Config.User}}')" = "10001:10001" ] || fail "the image does not run as 10001:10001"
[[ "$(inspect '{{json .Config.Entrypoint}}')" == '["/usr/bin/tini","--","node",'* ]] || fail "the entrypoint is not node under tini"
[[ "$(inspect '{{json .Config.Healthcheck}}')" == *readyz* ]] || fail "no HEALTHCHECK on /readyz"
[[ "$(inspect '{{json .Config.Volumes}}')" == *'/var/lib/stratum'* ]] || fail "/var/lib/stratum is not a volume"
for label in source version licenses revision; do
  [[ "$(inspect '{{json .Config.Labels}}')" == *"org.opencontainers.image.$label"* ]] || fail "no org.opencontainers.image.$label label"
done
[ "$(inspect '{{index .Config.Labels "org.opencontainers.image.version"}}')" = "$version" ] || fail "the version label is not $version"
$podman run --rm "${run_flags[@]}" --entrypoint sh "$image" -c 'test ! -e node_modules/typescript && test ! -e node_modules/tsx && test ! -e src' ||
  fail "the runtime image holds development dependencies or sources"
prove "the image runs as uid 10001 with node under tini as its entrypoint, a HEALTHCHECK on /readyz, /var/lib/stratum as a volume, OCI labels, and no development dependencies"

cleanup() {
  $podman rm -f -t 0 "$name" >/dev/null 2>&1 || true
  [ "${STRATUM_IMAGE_TEST_KEEP:-}" = 1 ] || $podman volume rm -f "$volume" >/dev/null 2>&1 || true
}
trap cleanup EXIT
$podman volume create "$volume" >/dev/null

start() {
  $podman rm -f -t 0 "$name" >/dev/null 2>&1 || true
  # The HEALTHCHECK is run by hand below: its timer needs systemd, which this machine may not run.
  $podman run -d --name "$name" "${run_flags[@]}" --health-interval=disable -p 127.0.0.1::8080 -v "$volume:/var/lib/stratum" "$image" >/dev/null 2>&1 ||
    fail "the container did not start"
  port=$($podman port "$name" 8080/tcp | head -n 1 | sed 's/.*://')
  url=http://127.0.0.1:$port
  for _ in $(seq 1 120); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$url/healthz" 2>/dev/null)" = 200 ] && return 0
    sleep 0.5
  done
  fail "/healthz did not answer 200 within a minute"
}
api() { curl -s -H "Authorization: Bearer $token" -H 'Content-Type: application/vnd.api+json' "$@"; }
json() { node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const v=JSON.parse(s);console.log($1)})"; }

start
[ "$(curl -s -o /dev/null -w '%{http_code}' "$url/readyz")" = 200 ] || fail "/readyz is not 200"
$podman healthcheck run "$name" >/dev/null 2>&1 || fail "the HEALTHCHECK does not pass"
[ "$($podman exec "$name" id -u)" = 10001 ] || fail "the service does not run as uid 10001"
[[ "$($podman exec "$name" cat /proc/1/cmdline | tr '\0' ' ')" == "node --max-semi-space-size=32 /opt/stratum/dist/cli.js serve"* ]] ||
  fail "PID 1 is not the node process"
[ "$($podman exec "$name" stat -c '%a %u' /var/lib/stratum)" = "700 10001" ] || fail "the data folder is not the service user's alone"
prove "a container answers /healthz and /readyz 200, passes its HEALTHCHECK, runs as uid 10001 with node as PID 1 and its data folder mode 0700"

token=$($podman exec "$name" stratum token --subject admin@example.com --groups STRATUM_ADMIN --ttl 1h | tail -n 1)
org_name=image-test-$$
created=$(api -X POST "$url/api/v1/organization" -d "{\"data\":{\"type\":\"organization\",\"attributes\":{\"name\":\"$org_name\"}}}")
org=$(echo "$created" | json 'v.data.id') || fail "creating an organization answered: $created"
[ "$(api -o /dev/null -w '%{http_code}' "$url/api/v1/organization/$org")" = 200 ] || fail "the organization cannot be read back"
prove "a token minted inside the container (stratum token) creates and reads an organization through the published port"

$podman stop -t 20 "$name" >/dev/null
logs=$($podman logs "$name" 2>&1)
grep -q '"signal":"SIGTERM".*"msg":"stopping"' <<<"$logs" || fail "no stopping line for SIGTERM"
grep -q '"cutShort":false,"msg":"stopped"' <<<"$logs" || fail "no stopped line"
[ "$($podman inspect --format '{{.State.ExitCode}}' "$name")" = 0 ] || fail "the exit code after SIGTERM is not 0"
prove "podman stop sends SIGTERM to PID 1: the log has the stopping and stopped lines and the exit code is 0"

start
found=$(api -g "$url/api/v1/organization?filter[organization]=name==$org_name" | json 'v.data.map(o=>o.id).join(",")')
[ "$found" = "$org" ] || fail "a new container on the same volume does not find the organization (found: '$found')"
$podman stop -t 20 "$name" >/dev/null
prove "a new container on the same volume finds the organization, and the token minted before (the keys are in the volume)"

say "proved ${#proved[@]} things about $image:"
printf '  - %s\n' "${proved[@]}"
echo "${#proved[@]} passed, 0 failed"
