# The pinned plandvc image: Debian bookworm-slim, Debian's chromium and its headless shell, Python from Debian, the locked deps.
#
# Pins. BASE is the multi-arch index digest of debian:bookworm-slim (bookworm-20260824-slim; amd64 and
# the other platforms resolve from it). `make lock` refreshes both pins with `make docker-pin`
# (docker/plandvc-docker.sh pin: with DOCKER_BASE=pinned the registry's current digest via skopeo and the
# chromium candidate apt shows inside that base; by default only the chromium pin, from the local base, as
# Debian's security archive serves only its latest chromium); the image tag follows, as it hashes this file.
# Where no registry is reachable, `make docker-build` passes --build-arg BASE=debian:bookworm-slim, a
# base made locally with debootstrap (`make docker-base`).
ARG BASE=debian:bookworm-slim@sha256:88200866dfff7ea7f5cbcb6ec7c8a701889efe6fe859fe64d6990e4b07ea4171
FROM ${BASE}

ARG CHROMIUM_VERSION=156.0.8078.129-1~deb12u1
ARG DEBIAN_FRONTEND=noninteractive

# Debian's chromium-headless-shell (headless runs) and chromium (--headful), the same pinned version
# (Playwright drives them by executable_path), their fonts, libatomic1 for Playwright's driver, Python
# from Debian.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      "chromium-headless-shell=${CHROMIUM_VERSION}" "chromium=${CHROMIUM_VERSION}" fonts-dejavu-core libatomic1 ca-certificates python3 python3-venv \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin

# The locked dependencies, with hashes, into a venv. The host's pip settings (index, CA bundle) are
# bind-mounted for this step only (docker/host_pip.py writes them into the build context); no layer
# holds them.
COPY requirements/requirements.lock /tmp/plandvc/requirements.lock
RUN --mount=type=bind,source=.plandvc/docker-build-host,target=/run/plandvc-host \
    python3 -m venv /opt/plandvc \
 && if [ -f /run/plandvc-host/pip.conf ]; then export PIP_CONFIG_FILE=/run/plandvc-host/pip.conf; fi \
 && /opt/plandvc/bin/pip install --no-cache-dir --disable-pip-version-check --require-hashes \
      -r /tmp/plandvc/requirements.lock \
 && rm -rf /tmp/plandvc

# The package itself (its dependencies are all above). At run time the mounted repo comes first on
# PYTHONPATH, so a run uses the repo's code; this copy makes the image work on its own.
COPY pyproject.toml README.md /tmp/plandvc-src/
COPY plandvc /tmp/plandvc-src/plandvc
RUN /opt/plandvc/bin/pip install --no-cache-dir --disable-pip-version-check --no-deps --no-build-isolation \
      /tmp/plandvc-src \
 && rm -rf /tmp/plandvc-src

RUN useradd --create-home --uid 1000 --shell /bin/bash plandvc

ARG PLANDVC_IMAGE=plandvc:dev
ENV PATH=/opt/plandvc/bin:${PATH} \
    PLANDVC_IMAGE=${PLANDVC_IMAGE} \
    PYTHONDONTWRITEBYTECODE=1 \
    LANG=C.UTF-8

USER plandvc
WORKDIR /home/plandvc
CMD ["plandvc", "--help"]
