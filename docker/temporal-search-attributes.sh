#!/bin/sh
# One-shot for compose: registers the custom search attributes every ppwr
# workflow carries (ARCHITECTURE.md, section 7). Without them starting a
# workflow fails, so the ppwr services wait for this to succeed. Safe to run
# on every `docker compose up`: attributes already present are left alone.
set -eu

addr="${TEMPORAL_ADDRESS:-temporal:7233}"
ns="${TEMPORAL_NAMESPACE:-default}"

# auto-setup creates the namespace only after the server is up, and its
# schema setup takes a while on a fresh database: wait up to five minutes.
tries=0
until temporal operator namespace describe --address "$addr" --namespace "$ns" >/dev/null 2>&1; do
	tries=$((tries + 1))
	if [ "$tries" -ge 60 ]; then
		echo "namespace $ns is not available at $addr after 5 minutes; see the temporal service's log" >&2
		exit 1
	fi
	echo "waiting for Temporal namespace $ns at $addr ..."
	sleep 5
done

existing=$(temporal operator search-attribute list --address "$addr" --namespace "$ns")
for name in OrganizationId ResourceId Outcome; do
	if printf '%s\n' "$existing" | awk '{print $1}' | grep -qx "$name"; then
		echo "search attribute $name already registered"
	else
		temporal operator search-attribute create --address "$addr" --namespace "$ns" \
			--name "$name" --type Keyword
	fi
done
