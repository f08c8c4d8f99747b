#!/usr/bin/env bash
# Installs the Debian packages that pgaq uses beside Python when they are missing:
# the PostgreSQL JDBC driver and a JRE for the Spark statistics job, a JDK and the JMS API
# for the Java provider (always), and with
# --test also Chromium (the /dashboard test), docker-compose (validating the compose file and
# running it), and podman with runc, catatonit (compose's `init: true`) and debootstrap (the
# base image), which `make compose-test` and tests/e2e/test_compose_up.py start the stack
# on, and Patroni, etcd and HAProxy (`make ha-test`'s PostgreSQL cluster); with --bench
# (`make bench`) also Debian's ActiveMQ broker, the java suite's peer (the
# package `activemq`; its dependency libactivemq-java brings the OpenWire client, hawtbuf
# and slf4j that the driver runs with; no instance is enabled, so no broker starts on its
# own), and Debian's RabbitMQ (`rabbitmq-server`, the peers suite's broker; the bench
# starts a private node of its own on loopback, and stops the system service the package
# enables, which the bench never uses); with either, HAProxy (the gateways' scale-out test and bench row, tests/e2e/
# test_gateway_scaleout.py). Only root on a Debian-like system installs; anyone else is
# told what to install.
set -u
test=0 bench=0
for a in "$@"; do
  case "$a" in --test) test=1 ;; --bench) bench=1 ;; esac
done
need=()
jar="${PGAQ_JDBC_JAR:-/usr/share/java/postgresql.jar}"
[ -f "$jar" ] || need+=(libpostgresql-jdbc-java)
command -v java >/dev/null 2>&1 || need+=(default-jre-headless)
# the Java JMS provider (`make java`): a JDK and the javax.jms 1.1 API
command -v javac >/dev/null 2>&1 || need+=(default-jdk-headless)
[ -f /usr/share/java/geronimo-jms_1.1_spec.jar ] || need+=(libgeronimo-jms-1.1-spec-java)
if [ "$bench" = 1 ]; then
  [ -f /usr/share/activemq/bin/activemq.jar ] || need+=(activemq)
  [ -f /usr/share/java/activemq-client.jar ] || need+=(libactivemq-java)
  [ -f /usr/share/java/slf4j-nop.jar ] || need+=(libslf4j-java)
  [ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || need+=(rabbitmq-server)
fi
if [ "$test" = 1 ] || [ "$bench" = 1 ]; then
  [ -x /usr/sbin/haproxy ] || need+=(haproxy)
fi
if [ "$test" = 1 ]; then
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  command -v docker-compose >/dev/null 2>&1 || need+=(docker-compose)
  command -v podman >/dev/null 2>&1 || need+=(podman)
  # podman's network backend (its store remembers the one it first used; CNI is the other
  # provider apt may pick, and then a store made with netavark no longer opens)
  [ -x /usr/lib/podman/netavark ] || need+=(netavark)
  command -v runc >/dev/null 2>&1 || need+=(runc)
  command -v catatonit >/dev/null 2>&1 || need+=(catatonit)
  command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
  # PostgreSQL under Patroni with etcd and HAProxy: `make ha-test` runs them here (the compose
  # profile `ha` runs them in its image, tests/e2e/test_ha.py the bounded run); HAProxy also
  # fronts the scaled-out gateways
  command -v patroni >/dev/null 2>&1 || need+=(patroni)
  command -v etcd >/dev/null 2>&1 || need+=(etcd-server)
  command -v etcdctl >/dev/null 2>&1 || need+=(etcd-client)
  [ -x /usr/sbin/haproxy ] || need+=(haproxy)
  # `ip` (iproute2) puts each of make ha-test's PostgreSQL members in a network namespace
  command -v ip >/dev/null 2>&1 || need+=(iproute2)
  # the Java provider's tests: JUnit 5 (its console launcher runs JUnit 4 too), the
  # embedded ActiveMQ broker of the conformance suite, Spring JMS
  [ -f /usr/share/java/junit-platform-console-standalone.jar ] || need+=(junit5)
  [ -f /usr/share/java/junit4.jar ] || need+=(junit4)
  [ -f /usr/share/java/activemq-broker.jar ] || need+=(libactivemq-java)
  [ -f /usr/share/java/spring3-jms.jar ] || need+=(libspring-jms-java)
  # ActiveMQ's example programs (/usr/share/doc/activemq/examples), run against pgaq
  [ -d /usr/share/doc/activemq/examples ] || need+=(activemq)
fi
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "pgaq: missing system packages: ${need[*]} (install them, e.g. with apt-get)" >&2
  exit 0
fi
echo "pgaq: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
