#!/bin/sh
# The namespace and its search attributes, registered by a step that fails loudly
# (temporal-dev.yml, profile prod: the service's containers start only once it exited 0).
# Idempotent: what exists is kept; an attribute that exists with another type is an error.
# Usage: setup-namespace.sh NAMESPACE RETENTION_DAYS NAME=Type...
set -eu
namespace="$1"; retention="$2"; shift 2

# A namespace just created (or updated) is known to the server's frontends only after their
# namespace cache refreshes (about 10 s): what follows it is retried for a minute, then fails.
retry() {
  tries=0
  until "$@"; do
    tries=$((tries + 1))
    [ "$tries" -lt 30 ] || { echo "failed 30 times over a minute: $*" >&2; exit 1; }
    sleep 2
  done
}

tries=0
until temporal operator cluster health >/dev/null 2>&1; do
  tries=$((tries + 1))
  [ "$tries" -le 60 ] || { echo "Temporal at $TEMPORAL_ADDRESS never became healthy" >&2; exit 1; }
  sleep 2
done

if ! temporal operator namespace describe --namespace "$namespace" >/dev/null 2>&1; then
  temporal operator namespace create --namespace "$namespace" --retention "${retention}d"
fi
retry temporal operator namespace update --namespace "$namespace" --retention "${retention}d"

existing=$(retry temporal operator search-attribute list --namespace "$namespace")
for pair in "$@"; do
  name="${pair%%=*}"; type="${pair#*=}"
  found=$(printf '%s\n' "$existing" | awk -v n="$name" '$1 == n {print $2}')
  if [ -z "$found" ]; then
    retry temporal operator search-attribute create --namespace "$namespace" --name "$name" --type "$type"
  elif [ "$found" != "$type" ]; then
    echo "search attribute $name is a $found, the workflows upsert a $type" >&2
    exit 1
  fi
done
echo "namespace $namespace: retention ${retention} days, $# search attributes registered"
