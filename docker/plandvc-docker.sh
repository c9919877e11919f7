#!/usr/bin/env bash
# The plandvc image on this host: the local base (debootstrap), the content tag, build and run, driven by
# the docker CLI (a Docker engine, or podman's API socket when none runs) or by podman itself.
#
#   docker/plandvc-docker.sh tools           install podman, debootstrap and runc when missing (apt-get)
#   docker/plandvc-docker.sh sources         the host's Debian bookworm apt entries ("<uri> <suite>" lines)
#   docker/plandvc-docker.sh base            debian:bookworm-slim made with debootstrap (skipped if present)
#   docker/plandvc-docker.sh tag             plandvc:<12 hex of what defines the image>
#   docker/plandvc-docker.sh build           build that tag (skipped if present)
#   docker/plandvc-docker.sh run CMD...      run CMD in the image, the repo mounted at /repo
#   docker/plandvc-docker.sh pin             refresh the BASE digest and CHROMIUM_VERSION pins in Dockerfile
#
# Environment: DOCKER=docker|podman (default docker); DOCKER_BASE=local|pinned (default local: the
# debootstrapped base, as no registry is reachable here; pinned: the Dockerfile's digest-pinned base);
# PLANDVC_APT_SOURCES (files/folders read for the Debian mirror); CONTAINERS_CONF (default
# docker/containers.conf); PLANDVC_PODMAN_SOCK (podman's API socket when it stands in for Docker).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
DOCKER=${DOCKER:-docker}
DOCKER_BASE=${DOCKER_BASE:-local}
BASE_NAME=debian:bookworm-slim
APT_SOURCES=${PLANDVC_APT_SOURCES:-/etc/apt/sources.list /etc/apt/sources.list.d}
SOCK=${PLANDVC_PODMAN_SOCK:-/run/plandvc/podman.sock}
export CONTAINERS_CONF=${CONTAINERS_CONF:-$HERE/containers.conf}
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

die() {
  echo "plandvc-docker: $*" >&2
  exit 1
}

case "$DOCKER" in docker | podman) ;; *) die "DOCKER must be docker or podman, not '$DOCKER'" ;; esac
case "$DOCKER_BASE" in local | pinned) ;; *) die "DOCKER_BASE must be local or pinned, not '$DOCKER_BASE'" ;; esac

podman_() { $SUDO env CONTAINERS_CONF="$CONTAINERS_CONF" podman "$@"; }

cmd_tools() {
  local missing=() tool
  for tool in podman debootstrap runc; do
    command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || missing+=("$tool")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null 2>&1 || die "missing ${missing[*]} and no apt-get to install them"
  [ -z "$SUDO" ] || sudo -n true 2>/dev/null || die "missing ${missing[*]}: installing them needs root or passwordless sudo"
  echo "installing ${missing[*]} (Debian packages)" >&2
  local log
  log=$(mktemp)
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"; } \
    >"$log" 2>&1 || { tail -n 5 "$log" >&2; rm -f "$log"; die "apt-get could not install ${missing[*]} (its last lines above)"; }
  rm -f "$log"
}

# The host's apt entries for Debian bookworm (main), one "<uri> <suite>" line each, from one-line
# (.list) and deb822 (.sources) files; disabled stanzas and other suites are left out.
cmd_sources() {
  local files=() f g
  for f in $APT_SOURCES; do
    if [ -d "$f" ]; then
      for g in "$f"/*.list "$f"/*.sources; do [ -f "$g" ] && files+=("$g"); done
    elif [ -f "$f" ]; then
      files+=("$f")
    fi
  done
  [ ${#files[@]} -gt 0 ] || return 0
  awk '
    function has(list, word) { return (" " list " ") ~ (" " word " ") }
    function flush(   n, m, i, j, u, s) {
      if (has(types, "deb") && has(comps, "main") && tolower(enabled) != "no") {
        n = split(uris, u, " "); m = split(suites, s, " ")
        for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) print u[i], s[j]
      }
      types = uris = suites = comps = enabled = ""
    }
    FNR == 1 { flush(); deb822 = (FILENAME ~ /\.sources$/) }
    deb822 && /^[ \t]*$/ { flush(); next }
    deb822 && /^[ \t]*#/ { next }
    deb822 {
      key = tolower($1); sub(/:$/, "", key); value = $0; sub(/^[^:]*:[ \t]*/, "", value)
      if (key == "types") types = value; else if (key == "uris") uris = value
      else if (key == "suites") suites = value; else if (key == "components") comps = value
      else if (key == "enabled") enabled = value
      next
    }
    /^[ \t]*deb[ \t]/ {
      line = $0; sub(/^[ \t]*deb[ \t]+/, "", line); sub(/^\[[^]]*\][ \t]*/, "", line)
      n = split(line, a, /[ \t]+/); c = ""
      for (i = 3; i <= n; i++) c = c " " a[i]
      if (has(c, "main")) print a[1], a[2]
    }
    END { flush() }
  ' "${files[@]}" | awk '$2 ~ /^bookworm(-updates|-security)?$/' | sort -u
}

# The engine DOCKER names: podman itself, or the docker CLI.
engine_() {
  case "$DOCKER" in
    podman) podman_ "$@" ;;
    docker) docker_ "$@" ;;
  esac
}

image_exists() { engine_ image inspect "$1" >/dev/null 2>&1; }

cmd_base() {
  cmd_tools
  if podman_ image exists "$BASE_NAME"; then
    echo "base $BASE_NAME exists: skipped" >&2
    return 0
  fi
  local entries mirror root started
  entries=$(cmd_sources)
  mirror=$(awk '$2 == "bookworm" { print $1; exit }' <<<"$entries")
  [ -n "$mirror" ] || die "no Debian bookworm 'main' entry in $APT_SOURCES (set PLANDVC_APT_SOURCES)"
  root=$(mktemp -d "${TMPDIR:-/var/tmp}/plandvc-base.XXXXXX")
  # shellcheck disable=SC2064
  trap "$SUDO rm -rf '$root'" EXIT
  started=$SECONDS
  echo "debootstrap --variant=minbase bookworm from the host's Debian mirror" >&2
  $SUDO debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 ||
    { tail -n 20 "$root.log" >&2; die "debootstrap failed (log above)"; }
  rm -f "$root.log"
  awk '{ print "deb", $1, $2, "main" }' <<<"$entries" | $SUDO tee "$root/etc/apt/sources.list" >/dev/null
  $SUDO rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb
  $SUDO tar --numeric-owner -C "$root" -c . | podman_ import --quiet --change 'CMD ["bash"]' - "$BASE_NAME" >/dev/null
  echo "base $BASE_NAME made in $((SECONDS - started)) s" >&2
}

# plandvc:<12 hex>: sha256 over the files that define the image (names and contents, in a fixed order).
cmd_tag() {
  local hex
  hex=$(cd "$REPO" && {
    sha256sum Dockerfile .dockerignore requirements/requirements.lock pyproject.toml
    find docker -type f ! -path 'docker/base/*' ! -path '*/__pycache__/*' -print0 | LC_ALL=C sort -z |
      xargs -0 sha256sum
  } | sha256sum | cut -c1-12)
  echo "plandvc:$hex"
}

# The docker CLI against a running engine; when none answers, against podman's API socket (started here).
DOCKER_CLI=()
docker_() {
  if [ ${#DOCKER_CLI[@]} -eq 0 ]; then
    command -v docker >/dev/null 2>&1 || die "the docker CLI is missing: install it, or use DOCKER=podman"
    if docker version >/dev/null 2>&1; then
      DOCKER_CLI=(docker)
    else
      start_podman_service
      DOCKER_CLI=($SUDO env "DOCKER_HOST=unix://$SOCK" docker)
    fi
    if "${DOCKER_CLI[@]}" version --format '{{.Server.Platform.Name}}' 2>/dev/null | grep -qi podman; then
      # podman's API speaks the classic build protocol, not BuildKit's sessions
      DOCKER_CLI=(env DOCKER_BUILDKIT=0 "${DOCKER_CLI[@]}")
    fi
  fi
  "${DOCKER_CLI[@]}" "$@"
}

start_podman_service() {
  cmd_tools
  if [ -S "$SOCK" ] && $SUDO env "DOCKER_HOST=unix://$SOCK" docker version >/dev/null 2>&1; then
    return 0
  fi
  echo "no Docker engine answers: starting podman's API socket for the docker CLI" >&2
  $SUDO mkdir -p "$(dirname "$SOCK")"
  $SUDO rm -f "$SOCK"
  # --time: the service exits after 30 idle minutes; the next call starts it again
  $SUDO env CONTAINERS_CONF="$CONTAINERS_CONF" setsid podman system service --time=1800 "unix://$SOCK" \
    </dev/null >/dev/null 2>"$(dirname "$SOCK")/service.log" &
  local deadline=$((SECONDS + 30))
  until $SUDO env "DOCKER_HOST=unix://$SOCK" docker version >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || die "podman's API socket did not answer within 30 s"
    sleep 0.1
  done
}

cmd_build() {
  local tag hostdir started
  tag=$(cmd_tag)
  if image_exists "$tag"; then
    echo "$tag exists: skipped" >&2
    echo "$tag"
    return 0
  fi
  local args=(build -f "$REPO/Dockerfile" -t "$tag" --build-arg "PLANDVC_IMAGE=$tag")
  case "$DOCKER_BASE" in
    local) cmd_base && args+=(--build-arg "BASE=$BASE_NAME") ;;
    pinned) ;;
  esac
  # The host's pip index settings and CA bundle, for the pip step only: bind-mounted from the build
  # context (RUN --mount), never copied into a layer, removed after the build.
  hostdir="$REPO/.plandvc/docker-build-host"
  rm -rf "$hostdir"
  mkdir -p "$hostdir"
  # shellcheck disable=SC2064
  trap "rm -rf '$hostdir'" EXIT
  python3 "$HERE/host_pip.py" "$hostdir"
  started=$SECONDS
  engine_ "${args[@]}" "$REPO" >&2
  echo "$tag built in $((SECONDS - started)) s" >&2
  echo "$tag"
}

# Run a command in the image: the repo at /repo (its code first on PYTHONPATH), files owned by the caller,
# a writable HOME, an init process, shared memory for Chromium; PLANDVC_* knobs pass through.
cmd_run() {
  [ $# -gt 0 ] || die "run: no command given"
  local tag
  tag=$(cmd_tag)
  image_exists "$tag" || die "$tag is not built (make docker-build)"
  local args=(run --rm --init --shm-size=1g -u "$(id -u):$(id -g)"
    -e HOME=/tmp/home --tmpfs /tmp/home:rw,exec,mode=1777
    -v "$REPO:/repo" -w /repo -e PYTHONPATH=/repo)
  [ -t 0 ] && [ -t 1 ] && args+=(-it)
  local name
  while IFS= read -r name; do
    case "$name" in PLANDVC_IMAGE | PLANDVC_CHROMIUM) ;; PLANDVC_*) args+=(-e "$name") ;; esac
  done < <(compgen -e)
  engine_ "${args[@]}" "$tag" "$@"
}

# Refresh the pins. DOCKER_BASE=pinned: BASE = the registry's current digest of debian:bookworm-slim (needs
# skopeo and a reachable registry), CHROMIUM_VERSION = the candidate apt shows inside that base.
# DOCKER_BASE=local (no registry): BASE stays, CHROMIUM_VERSION = the candidate inside the local base (made by
# `base`), so a pin Debian's security archive no longer serves (it keeps only the latest) can be renewed here.
cmd_pin() {
  local digest="" from version
  if [ "$DOCKER_BASE" = pinned ]; then
    command -v skopeo >/dev/null 2>&1 || die "pin: skopeo is missing (apt-get install skopeo)"
    digest=$(skopeo inspect --raw "docker://docker.io/library/$BASE_NAME" | sha256sum | cut -d' ' -f1) ||
      die "pin: the registry did not answer for $BASE_NAME"
    [ ${#digest} -eq 64 ] || die "pin: no digest for $BASE_NAME"
    from="docker.io/library/$BASE_NAME@sha256:$digest"
  else
    podman_ image exists "$BASE_NAME" || die "pin: no local $BASE_NAME (make docker-base), or DOCKER_BASE=pinned"
    from=$BASE_NAME
  fi
  version=$(podman_ run --rm "$from" sh -c 'apt-get update -qq && apt-cache policy chromium' |
    awk '/Candidate:/ { print $2 }')
  [ -n "$version" ] && [ "$version" != "(none)" ] || die "pin: no chromium candidate in $from"
  [ -z "$digest" ] || sed -i -e "s|^ARG BASE=.*|ARG BASE=$BASE_NAME@sha256:$digest|" "$REPO/Dockerfile"
  sed -i -e "s|^ARG CHROMIUM_VERSION=.*|ARG CHROMIUM_VERSION=$version|" "$REPO/Dockerfile"
  echo "pinned chromium $version${digest:+ and $BASE_NAME@sha256:$digest}" >&2
}

command=${1:-}
[ $# -gt 0 ] && shift
case "$command" in
  tools | sources | base | tag | build | run | pin) "cmd_$command" "$@" ;;
  *) die "usage: $0 {tools|sources|base|tag|build|run|pin} [args]" ;;
esac
