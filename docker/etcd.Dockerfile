# etcd for the Helm chart's own etcd (etcdCluster in helm/resched/values.yaml): Debian 12's
# etcd-server, on the base of the resched image (docker/Dockerfile) and as its unprivileged user,
# writing only to its data volume.
#
#   make image              builds localhost/resched-etcd:latest beside localhost/resched:latest
#   make image-smoke        CI (docker/smoke-test.sh): three resched replicas on one member
FROM docker.io/library/debian:bookworm-slim
ARG VERSION=dev
LABEL org.opencontainers.image.title="resched-etcd" \
      org.opencontainers.image.description="Debian's etcd-server for resched's journal (docs/ha.md)" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.base.name="docker.io/library/debian:bookworm-slim"
RUN apt-get update \
    && apt-get install -y --no-install-recommends etcd-server \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /var/lib/etcd && chown 10001:10001 /var/lib/etcd
USER 10001:10001
VOLUME /var/lib/etcd
EXPOSE 2379 2380
ENTRYPOINT ["etcd", "--data-dir", "/var/lib/etcd/data"]
