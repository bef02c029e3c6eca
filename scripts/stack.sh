#!/usr/bin/env bash
# Local stack for ppwr: the backing services (PostgreSQL, Temporal, an S3
# store, an SMTP sink, ClamAV's clamd) and the application itself, as `make run`, `make stop`,
# `make test` and `make bench` need them.
#
#   scripts/stack.sh up          everything, then `ppwr dev` in the foreground; Ctrl-C stops all
#   scripts/stack.sh services    only the backing services, left running in the background
#   scripts/stack.sh down        stops whatever `up` or `services` started (pid files in .data/run)
#   scripts/stack.sh status      what is running
#   scripts/stack.sh pg          makes sure PostgreSQL answers and prints its admin URL
#   scripts/stack.sh test        gofmt, go vet, go test -race ./... with a PostgreSQL for the tests
#   scripts/stack.sh bench       go run ./cmd/ppwr-bench with the same PostgreSQL (and bin/ppwr for its worker)
#   scripts/stack.sh build       builds bin/ppwr and bin/smtp-sink
#   scripts/stack.sh clean-data  stops everything and deletes .data (all local state)
#
# State lives under .data/ and survives restarts. Only processes recorded in
# .data/run/*.pid are ever stopped; a PostgreSQL that was already running on
# the machine is used, never stopped.
#
# Overrides (environment): the application's own variables (HTTP_ADDR,
# TEMPORAL_ADDRESS, S3_ENDPOINT, SMTP_URL, ...) and
#   PPWR_PG_HOST, PPWR_PG_PORT  where PostgreSQL is looked for or started (127.0.0.1, 5432)
#   PPWR_PG_BINDIR              directory with initdb and pg_ctl (found automatically)
#   PPWR_TEMPORAL_UI_PORT       Temporal UI port (8233)
#   PPWR_S3_SIDECAR=1           keep S3 metadata in files instead of extended attributes
#   PPWR_CLAMD_BIN              clamd binary (/usr/sbin/clamd; Debian's clamav-daemon is
#                               installed when it is missing and this runs as root)
#   PPWR_CHROMIUM_BIN           the browser tests' Chromium (/usr/bin/chromium; Debian's
#                               chromium is installed by `test` when it is missing)
#   PPWR_AXE_JS                 axe-core's axe.min.js for the browser tests (default: installed
#                               by `test` with npm into bin/npm, at the version
#                               scripts/npm/package-lock.json pins)
#   PPWR_BIN                    run this ppwr binary instead of building ./cmd/ppwr
#   GOTESTFLAGS                 extra flags for go test, e.g. "-run TestImport -v"
#   PPWR_FUZZTIME               how much make test fuzzes the write pipeline (3000x:
#                               a count of runs; see the test step for why not a duration)
# If DATABASE_URL (for up/services) or TEST_DATABASE_URL (for test/bench) is
# set, that database is used as it is and no PostgreSQL is managed here.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

DATA="$ROOT/.data"
RUN="$DATA/run"
LOGS="$DATA/logs"
BIN="$ROOT/bin"

# Decided before the defaults below fill them in, so that "set by the user"
# can be told apart from "our default".
USER_DATABASE_URL="${DATABASE_URL:-}"
USER_TEST_DATABASE_URL="${TEST_DATABASE_URL:-}"

PG_HOST="${PPWR_PG_HOST:-127.0.0.1}"
PG_PORT="${PPWR_PG_PORT:-5432}"
PG_DB=ppwr
TEMPORAL_UI_PORT="${PPWR_TEMPORAL_UI_PORT:-8233}"

: "${HTTP_ADDR:=127.0.0.1:8080}"
: "${SUPPORT_ADDR:=127.0.0.1:8090}"
: "${DATABASE_URL:=postgres://postgres@$PG_HOST:$PG_PORT/$PG_DB?sslmode=disable}"
: "${TEMPORAL_ADDRESS:=127.0.0.1:7233}"
: "${TEMPORAL_NAMESPACE:=default}"
: "${TEMPORAL_TASK_QUEUE:=ppwr}"
: "${TEMPORAL_UI_URL:=http://${TEMPORAL_ADDRESS%:*}:$TEMPORAL_UI_PORT}"
: "${S3_ENDPOINT:=http://127.0.0.1:7070}"
: "${S3_BUCKET:=ppwr}"
: "${S3_REGION:=us-east-1}"
: "${AWS_ACCESS_KEY_ID:=ppwr-local}"
: "${AWS_SECRET_ACCESS_KEY:=ppwr-local-secret}"
: "${SMTP_URL:=smtp://127.0.0.1:1025}"
: "${MAIL_FROM:=ppwr@localhost}"
: "${PUBLIC_BASE_URL:=http://127.0.0.1:8080}"
: "${MAIL_REPLY_ADDRESS:=replies@ppwr.localhost}"
: "${INBOUND_SMTP_ADDR:=127.0.0.1:2525}"
: "${CLAMD_ADDRESS:=127.0.0.1:3310}"
# Local receivers (an ERP on the developer's machine) are plain http.
: "${WEBHOOK_ALLOW_HTTP_LOOPBACK:=true}"
export HTTP_ADDR SUPPORT_ADDR DATABASE_URL TEMPORAL_ADDRESS TEMPORAL_NAMESPACE TEMPORAL_TASK_QUEUE TEMPORAL_UI_URL \
	S3_ENDPOINT S3_BUCKET S3_REGION AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY \
	SMTP_URL MAIL_FROM MAIL_REPLY_ADDRESS INBOUND_SMTP_ADDR PUBLIC_BASE_URL CLAMD_ADDRESS WEBHOOK_ALLOW_HTTP_LOOPBACK

CLAMD_BIN="${PPWR_CLAMD_BIN:-/usr/sbin/clamd}"
CHROMIUM_BIN="${PPWR_CHROMIUM_BIN:-/usr/bin/chromium}"
NPM_DIR="$BIN/npm"
AXE_JS="${PPWR_AXE_JS:-$NPM_DIR/node_modules/axe-core/axe.min.js}"

# Services in start order; they are stopped in reverse.
SERVICES=(temporal versitygw smtp-sink clamd ppwr)

# Set when this invocation started the private PostgreSQL cluster, so that
# Ctrl-C or the end of `make test` stops it, and only then.
PG_STARTED_HERE=0

# ---------------------------------------------------------------- helpers

say() { printf '==> %s\n' "$*" >&2; }
die() {
	printf '\nerror: %s\n' "$*" >&2
	exit 1
}

# die_log explains a failure and shows the end of the log that tells why.
die_log() {
	local msg=$1 log=$2
	if [[ -s $log ]]; then
		printf '\n--- last lines of %s ---\n' "${log#"$ROOT"/}" >&2
		tail -n 25 "$log" >&2 || true
		printf -- '---\n' >&2
	fi
	die "$msg (full log: ${log#"$ROOT"/})"
}

# host_port turns "scheme://user@host:port/path" or "host:port" into "host:port".
host_port() {
	local u=${1#*://}
	u=${u%%/*}
	u=${u##*@}
	printf '%s' "$u"
}

port_open() { timeout 1 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }

# alive is false for zombies too: a child that exited but was not reaped yet
# must count as gone.
alive() {
	local pid=$1 state
	[[ -r /proc/$pid/stat ]] || return 1
	state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
	[[ -n $state && $state != Z ]]
}

# argv0 is what a process was started as; pid files record it so that a pid
# reused by an unrelated process is never signalled.
argv0() { tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null | head -n 1; }

# wait_until DESCRIPTION SECONDS LOG PID COMMAND... polls COMMAND until it
# succeeds; fails early if PID (when not empty) has exited.
wait_until() {
	local what=$1 secs=$2 log=$3 pid=$4
	shift 4
	local deadline=$((SECONDS + secs))
	until "$@" >/dev/null 2>&1; do
		if [[ -n $pid ]] && ! alive "$pid"; then
			die_log "$what exited during startup" "$log"
		fi
		if ((SECONDS >= deadline)); then
			die_log "$what not ready after ${secs}s" "$log"
		fi
		sleep 0.2
	done
}

require_free_port() {
	local name=$1 hp=$2
	if port_open "${hp%:*}" "${hp##*:}"; then
		die "$name cannot start: something already listens on $hp. If it is a leftover of an earlier run, 'make stop' ends it; otherwise free the port (ss -ltnp 'sport = :${hp##*:}' shows who holds it)."
	fi
}

# ---------------------------------------------------------------- processes

# start_service NAME [VAR=VALUE...] -- COMMAND... runs COMMAND in the
# background in a session of its own, so that a Ctrl-C in the terminal reaches
# only this script, which then stops the services in order. VAR=VALUE pairs go
# into the service's environment only (secrets stay off the command line).
start_service() {
	local name=$1
	shift
	local -a envs=()
	while [[ $1 != -- ]]; do
		envs+=("$1")
		shift
	done
	shift
	local log="$LOGS/$name.log"
	printf '\n=== %s starting: %s\n' "$(date -Iseconds)" "$*" >>"$log"
	(
		for kv in "${envs[@]}"; do export "${kv?}"; done
		exec setsid "$@"
	) </dev/null >>"$log" 2>&1 &
	local pid=$!
	printf '%s %s\n' "$pid" "$1" >"$RUN/$name.pid"
	STARTED_PIDS+=("$pid")
}
STARTED_PIDS=()

# service_pid NAME prints the pid of a running service recorded in its pid
# file, or fails.
service_pid() {
	local file="$RUN/$1.pid" pid exe
	[[ -f $file ]] || return 1
	read -r pid exe <"$file" || return 1
	[[ -n $pid ]] && alive "$pid" && [[ $(argv0 "$pid") == "$exe" ]] || return 1
	printf '%s' "$pid"
}

# stop_service NAME SECONDS: SIGTERM to the service's process group, SIGKILL
# after SECONDS. Waiting for the exit matters: Temporal keeps its SQLite file
# locked until the process is gone. The group is signalled even when its
# leader has already died, so that nothing it spawned is left behind (a pid
# that is still some group's id is never handed to a new process).
stop_service() {
	local name=$1 secs=$2 file="$RUN/$1.pid" pid exe
	[[ -f $file ]] || return 0
	read -r pid exe <"$file" || true
	rm -f "$file"
	[[ $pid =~ ^[0-9]+$ ]] || return 0
	if alive "$pid" && [[ $(argv0 "$pid") != "$exe" ]]; then
		return 0 # the pid now belongs to something else
	fi
	# Reap a dead child first, or its zombie keeps the group "alive".
	alive "$pid" || wait "$pid" 2>/dev/null || true
	group_alive "$pid" || return 0

	say "stopping $name (pid $pid)"
	kill -TERM -- "-$pid" 2>/dev/null || true
	local deadline=$((SECONDS + secs))
	while group_alive "$pid" && ((SECONDS < deadline)); do
		alive "$pid" || wait "$pid" 2>/dev/null || true
		sleep 0.2
	done
	if group_alive "$pid"; then
		say "$name did not stop within ${secs}s; killing it"
		kill -KILL -- "-$pid" 2>/dev/null || true
		sleep 0.5
	fi
	wait "$pid" 2>/dev/null || true
}

# group_alive is true while any process of the group is running (zombies
# excluded).
group_alive() {
	if ! command -v pgrep >/dev/null; then
		kill -0 -- "-$1" 2>/dev/null
		return
	fi
	local p
	for p in $(pgrep -g "$1" 2>/dev/null); do
		alive "$p" && return 0
	done
	return 1
}

stop_services() {
	local i
	for ((i = ${#SERVICES[@]} - 1; i >= 0; i--)); do
		case ${SERVICES[i]} in
		ppwr) stop_service ppwr 30 ;;
		*) stop_service "${SERVICES[i]}" 15 ;;
		esac
	done
}

prepare_dirs() {
	mkdir -p "$RUN" "$LOGS" "$DATA/s3" "$DATA/mail" "$DATA/clamd/tmp"
}

# ---------------------------------------------------------------- PostgreSQL

find_pg_bindir() {
	if [[ -n ${PPWR_PG_BINDIR:-} ]]; then
		printf '%s' "$PPWR_PG_BINDIR"
		return
	fi
	local d
	d=$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
	if [[ -z $d ]] && command -v initdb >/dev/null; then
		d=$(dirname "$(command -v initdb)")
	fi
	[[ -n $d && -x $d/initdb && -x $d/pg_ctl ]] ||
		die "PostgreSQL server binaries (initdb, pg_ctl) not found; install them (apt-get install postgresql) or set PPWR_PG_BINDIR"
	printf '%s' "$d"
}

pg_tool() {
	if command -v "$1" >/dev/null; then
		printf '%s' "$1"
	else
		printf '%s/%s' "$(find_pg_bindir)" "$1"
	fi
}

pg_answers() { "$(pg_tool pg_isready)" -q -h "$PG_HOST" -p "$PG_PORT" -t 2; }

psql_admin() {
	"$(pg_tool psql)" -X -q -v ON_ERROR_STOP=1 -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres "$@"
}

# PostgreSQL refuses to run as root, so as root the private cluster belongs to
# the `postgres` system user; otherwise to whoever runs this.
PG_OS_USER=postgres
as_pg_owner() {
	if ((EUID == 0)); then
		runuser -u "$PG_OS_USER" -- "$@"
	else
		"$@"
	fi
}

ensure_pg_os_user() {
	((EUID == 0)) || return 0
	if ! id "$PG_OS_USER" >/dev/null 2>&1; then
		say "creating system user $PG_OS_USER to own the private PostgreSQL cluster"
		useradd --system --user-group --no-create-home --home-dir /nonexistent \
			--shell /usr/sbin/nologin "$PG_OS_USER"
	fi
}

# pg_paths sets PGDATA_DIR and PG_LOG. The cluster lives in .data/postgres
# unless the owner cannot even reach that directory (a checkout under /root,
# say); then it lives under /var/tmp, keyed by the checkout's path, and the
# log is linked into .data/logs.
pg_paths() {
	PGDATA_DIR="$DATA/postgres"
	PG_LOG="$LOGS/postgres.log"
	if ((EUID == 0)) && id "$PG_OS_USER" >/dev/null 2>&1 &&
		! runuser -u "$PG_OS_USER" -- test -x "$DATA" 2>/dev/null; then
		local base
		base="/var/tmp/ppwr-postgres-$(printf '%s' "$ROOT" | md5sum | cut -c1-12)"
		PGDATA_DIR="$base/data"
		PG_LOG="$base/postgres.log"
	fi
}

private_pg_running() {
	pg_paths
	[[ -f $PGDATA_DIR/PG_VERSION ]] || return 1
	as_pg_owner "$(find_pg_bindir)/pg_ctl" -D "$PGDATA_DIR" status >/dev/null 2>&1
}

start_private_pg() {
	local bindir
	bindir=$(find_pg_bindir)
	ensure_pg_os_user
	mkdir -p "$LOGS"
	pg_paths
	local base
	base=$(dirname "$PGDATA_DIR")
	mkdir -p "$base"
	if [[ $PG_LOG != "$LOGS/postgres.log" ]]; then
		chmod 755 "$base"
		ln -sfn "$PG_LOG" "$LOGS/postgres.log"
	fi
	touch "$PG_LOG"
	if ((EUID == 0)); then chown "$PG_OS_USER:" "$PG_LOG"; fi

	if [[ ! -f $PGDATA_DIR/PG_VERSION ]]; then
		say "initialising a private PostgreSQL cluster in ${PGDATA_DIR#"$ROOT"/}"
		mkdir -p "$PGDATA_DIR"
		chmod 700 "$PGDATA_DIR"
		if ((EUID == 0)); then chown "$PG_OS_USER:" "$PGDATA_DIR"; fi
		local locale=C
		if locale -a 2>/dev/null | grep -qix 'c\.utf-\?8'; then locale=C.UTF-8; fi
		as_pg_owner "$bindir/initdb" -D "$PGDATA_DIR" -U postgres --auth=trust \
			--encoding=UTF8 --locale="$locale" >>"$PG_LOG" 2>&1 ||
			die_log "initdb failed" "$PG_LOG"
	fi

	if as_pg_owner "$bindir/pg_ctl" -D "$PGDATA_DIR" status >/dev/null 2>&1; then
		die "the private PostgreSQL cluster in ${PGDATA_DIR#"$ROOT"/} is running but does not answer on $PG_HOST:$PG_PORT (started with another PPWR_PG_PORT?); 'make stop' stops it"
	fi
	require_free_port PostgreSQL "$PG_HOST:$PG_PORT"

	say "starting the private PostgreSQL cluster on $PG_HOST:$PG_PORT"
	# No Unix socket: the system server may own the default socket directory,
	# and everything here connects over TCP anyway. Tests open many pools at
	# once, hence the higher connection limit.
	as_pg_owner "$bindir/pg_ctl" -D "$PGDATA_DIR" -l "$PG_LOG" -w -t 60 \
		-o "-c listen_addresses=$PG_HOST -p $PG_PORT -c unix_socket_directories='' -c max_connections=300" \
		start >/dev/null 2>&1 || die_log "the private PostgreSQL cluster did not start" "$PG_LOG"
	PG_STARTED_HERE=1
	wait_until "PostgreSQL on $PG_HOST:$PG_PORT" 30 "$PG_LOG" "" pg_answers
}

stop_private_pg() {
	if private_pg_running; then
		say "stopping the private PostgreSQL cluster"
		as_pg_owner "$(find_pg_bindir)/pg_ctl" -D "$PGDATA_DIR" -m fast -w -t 60 stop >/dev/null 2>&1 ||
			say "warning: pg_ctl stop failed; see ${PG_LOG#"$ROOT"/}"
	fi
}

# ensure_pg uses whatever answers on PG_HOST:PG_PORT (the machine's server,
# typically) and starts the private cluster only when nothing does.
ensure_pg() {
	if pg_answers; then
		say "using the PostgreSQL server already running on $PG_HOST:$PG_PORT"
	else
		start_private_pg
	fi
	psql_admin -Atc 'select 1' >/dev/null 2>&1 ||
		die "PostgreSQL on $PG_HOST:$PG_PORT answers but refuses user postgres without a password; set DATABASE_URL and TEST_DATABASE_URL to URLs that work"
}

ensure_app_db() {
	if [[ -z $(psql_admin -Atc "select 1 from pg_database where datname = '$PG_DB'") ]]; then
		say "creating database $PG_DB"
		psql_admin -c "create database \"$PG_DB\"" >/dev/null
	fi
}

# ---------------------------------------------------------------- build

go_build() {
	local out=$1 pkg=$2
	go build -o "$out" "$pkg" || die "could not build $pkg (go build -o ${out#"$ROOT"/} $pkg failed; compiler output above)"
}

build_ppwr() {
	if [[ -n ${PPWR_BIN:-} ]]; then
		[[ -x $PPWR_BIN ]] || die "PPWR_BIN=$PPWR_BIN is not an executable"
		PPWR="$PPWR_BIN"
		return
	fi
	[[ -d $ROOT/cmd/ppwr ]] || die "./cmd/ppwr does not exist yet: nothing to build"
	say "building bin/ppwr"
	go_build "$BIN/ppwr" ./cmd/ppwr
	PPWR="$BIN/ppwr"
}

build_sink() {
	say "building bin/smtp-sink"
	go_build "$BIN/smtp-sink" ./cmd/smtp-sink
}

require_tools() {
	local t
	for t in temporal versitygw; do
		[[ -x $BIN/$t ]] || die "bin/$t is missing; 'make tools' builds it"
	done
}

# ensure_debian_package installs a Debian package when the file it
# provides is missing: unlike the Go tools these cannot be built from the
# module proxy. Only root can install; anyone else is told what to run.
ensure_debian_package() {
	local package=$1 file=$2
	[[ -x $file ]] && return 0
	if ((EUID != 0)) || ! command -v apt-get >/dev/null; then
		die "$file is missing; install it as root: apt-get update && apt-get install -y $package"
	fi
	mkdir -p "$LOGS"
	local log="$LOGS/apt-$package.log"
	say "installing $package with apt-get ($file is missing; output in ${log#"$ROOT"/})"
	{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "$package"; } >>"$log" 2>&1 ||
		die_log "apt-get install -y $package failed" "$log"
	[[ -x $file ]] || die "$package is installed but $file is still missing"
}

# ensure_clamd installs ClamAV's daemon, which scans uploads.
ensure_clamd() {
	[[ -x $CLAMD_BIN ]] && return 0
	[[ -z ${PPWR_CLAMD_BIN:-} ]] || die "PPWR_CLAMD_BIN=$PPWR_CLAMD_BIN is not an executable clamd"
	ensure_debian_package clamav-daemon "$CLAMD_BIN"
}

# ensure_chromium installs the headless browser the end-to-end tests of web
# pages drive.
ensure_chromium() {
	[[ -x $CHROMIUM_BIN ]] && return 0
	[[ -z ${PPWR_CHROMIUM_BIN:-} ]] || die "PPWR_CHROMIUM_BIN=$PPWR_CHROMIUM_BIN is not an executable chromium"
	ensure_debian_package chromium "$CHROMIUM_BIN"
}

# ensure_axe installs axe-core, which the browser tests inject into pages to
# check their accessibility, with npm into bin/npm at the versions that
# scripts/npm/package-lock.json pins. A changed lock file reinstalls them.
ensure_axe() {
	if [[ -n ${PPWR_AXE_JS:-} ]]; then
		[[ -f $PPWR_AXE_JS ]] || die "PPWR_AXE_JS=$PPWR_AXE_JS is not a file"
		return 0
	fi
	[[ -f $AXE_JS ]] && cmp -s scripts/npm/package-lock.json "$NPM_DIR/package-lock.json" && return 0
	command -v npm >/dev/null || ensure_debian_package npm /usr/bin/npm
	mkdir -p "$NPM_DIR" "$LOGS"
	cp scripts/npm/package.json scripts/npm/package-lock.json "$NPM_DIR/"
	local log="$LOGS/npm.log"
	say "installing the tests' npm packages (axe-core) into bin/npm (output in ${log#"$ROOT"/})"
	npm ci --prefix "$NPM_DIR" --ignore-scripts --no-audit --no-fund >>"$log" 2>&1 ||
		die_log "npm ci in bin/npm failed" "$log"
	[[ -f $AXE_JS ]] || die "npm installed bin/npm but $AXE_JS is still missing"
}

# ensure_poppler installs poppler's pdftotext, the independent PDF reader
# the tests of generated PDFs read them back with.
ensure_poppler() { ensure_debian_package poppler-utils /usr/bin/pdftotext; }

# ensure_openpyxl installs Debian's openpyxl for /usr/bin/python3, the
# independent XLSX reader the tests of BDO exports read them back with.
ensure_openpyxl() { ensure_debian_package python3-openpyxl /usr/lib/python3/dist-packages/openpyxl; }

# ---------------------------------------------------------------- services

start_temporal() {
	local hp log="$LOGS/temporal.log"
	hp=$(host_port "$TEMPORAL_ADDRESS")
	require_free_port Temporal "$hp"
	require_free_port "the Temporal UI" "${hp%:*}:$TEMPORAL_UI_PORT"
	say "starting Temporal on $hp (UI on port $TEMPORAL_UI_PORT)"
	start_service temporal -- "$BIN/temporal" server start-dev \
		--db-filename "$DATA/temporal.db" \
		--ip "${hp%:*}" --port "${hp##*:}" --ui-port "$TEMPORAL_UI_PORT" \
		--search-attribute OrganizationId=Keyword \
		--search-attribute ResourceId=Keyword \
		--search-attribute Outcome=Keyword
	local pid=${STARTED_PIDS[-1]}
	wait_until "Temporal" 60 "$log" "$pid" \
		"$BIN/temporal" operator cluster health --address "$hp"
	wait_until "Temporal namespace $TEMPORAL_NAMESPACE" 30 "$log" "$pid" \
		"$BIN/temporal" operator namespace describe --address "$hp" --namespace "$TEMPORAL_NAMESPACE"
}

# versitygw keeps S3 metadata in extended attributes and refuses to start
# where the filesystem has none (some overlay and network filesystems). The
# sidecar mode keeps it in files instead; the choice is remembered because
# metadata written one way is not found the other way. (The sidecar directory
# must not even share a name prefix with the root: versitygw compares strings.)
start_versitygw() {
	local hp log="$LOGS/versitygw.log" mode_file="$DATA/s3-metadata-mode"
	hp=$(host_port "$S3_ENDPOINT")
	require_free_port versitygw "$hp"
	local mode=xattr
	if [[ -f $mode_file ]]; then
		mode=$(<"$mode_file")
	elif [[ ${PPWR_S3_SIDECAR:-0} == 1 ]]; then
		mode=sidecar
	fi

	local attempt
	for attempt in 1 2; do
		local -a extra=()
		if [[ $mode == sidecar ]]; then
			mkdir -p "$DATA/sidecar-s3"
			extra=(--sidecar "$DATA/sidecar-s3")
		fi
		say "starting versitygw on $hp (objects in .data/s3, metadata in $mode)"
		start_service versitygw \
			"ROOT_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID" "ROOT_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY" \
			"VGW_REGION=$S3_REGION" -- \
			"$BIN/versitygw" --port "$hp" posix "${extra[@]}" "$DATA/s3"
		local pid=${STARTED_PIDS[-1]} deadline=$((SECONDS + 30))
		until port_open "${hp%:*}" "${hp##*:}"; do
			if ! alive "$pid"; then
				wait "$pid" 2>/dev/null || true
				rm -f "$RUN/versitygw.pid"
				if [[ $mode == xattr && $attempt == 1 ]] && tail -n 5 "$log" | grep -q 'xattr'; then
					say "this filesystem has no extended attributes; switching versitygw to sidecar metadata"
					mode=sidecar
					continue 2
				fi
				die_log "versitygw exited during startup" "$log"
			fi
			((SECONDS < deadline)) || die_log "versitygw not ready after 30s" "$log"
			sleep 0.2
		done
		printf '%s\n' "$mode" >"$mode_file"
		return
	done
}

start_smtp_sink() {
	local hp log="$LOGS/smtp-sink.log"
	hp=$(host_port "$SMTP_URL")
	require_free_port "the SMTP sink" "$hp"
	say "starting the SMTP sink on $hp (messages in .data/mail)"
	start_service smtp-sink -- "$BIN/smtp-sink" --addr "$hp" --dir "$DATA/mail"
	wait_until "the SMTP sink" 15 "$log" "${STARTED_PIDS[-1]}" port_open "${hp%:*}" "${hp##*:}"
}

# clamd_pongs HOST PORT is true when a clamd there answers PING.
clamd_pongs() {
	local reply
	reply=$(timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2" && printf "zPING\0" >&3 && tr -d "\0" <&3' _ "$1" "$2") &&
		[[ $reply == PONG ]]
}

# clamd runs with the project's own signatures (scripts/clamav: EICAR only,
# as nothing can be downloaded here) and a configuration written on every
# start, so that this script is its only source. In the foreground clamd
# logs to stdout, which start_service keeps in .data/logs/clamd.log.
start_clamd() {
	local hp log="$LOGS/clamd.log" conf="$DATA/clamd/clamd.conf"
	[[ $CLAMD_ADDRESS != unix:* ]] ||
		die "the local stack runs clamd on TCP; set CLAMD_ADDRESS to host:port (default 127.0.0.1:3310), not $CLAMD_ADDRESS"
	hp=$(host_port "$CLAMD_ADDRESS")
	require_free_port clamd "$hp"
	# StreamMaxLength and the scan limits leave room for 100 MB uploads.
	cat >"$conf" <<CONF
# Written by scripts/stack.sh on every start; edit the script, not this file.
Foreground yes
TCPAddr ${hp%:*}
TCPSocket ${hp##*:}
DatabaseDirectory $ROOT/scripts/clamav
TemporaryDirectory $DATA/clamd/tmp
StreamMaxLength 200M
MaxFileSize 200M
MaxScanSize 200M
CONF
	say "starting clamd on $hp (signatures from scripts/clamav)"
	start_service clamd -- "$CLAMD_BIN" --config-file="$conf"
	wait_until "clamd" 60 "$log" "${STARTED_PIDS[-1]}" clamd_pongs "${hp%:*}" "${hp##*:}"
}

# Services recorded by an earlier `services` run or by an `up` that was
# killed without cleaning up are stopped first: their ports and Temporal's
# SQLite lock would make the new ones fail.
stop_leftovers() {
	stop_services
	rm -f "$RUN"/*.pid
}

refuse_second_up() {
	local pid exe
	if [[ -f $RUN/stack.pid ]] && read -r pid exe <"$RUN/stack.pid" &&
		alive "$pid" && [[ $pid != "$$" ]] && grep -q "stack.sh" "/proc/$pid/cmdline" 2>/dev/null; then
		die "the stack is already running (script pid $pid); 'make stop' ends it"
	fi
}

start_backing_services() {
	require_tools
	ensure_clamd
	build_sink
	prepare_dirs
	if [[ -n $USER_DATABASE_URL ]]; then
		say "using DATABASE_URL from the environment; not managing PostgreSQL"
	else
		ensure_pg
		ensure_app_db
	fi
	start_temporal
	start_versitygw
	start_smtp_sink
	start_clamd
}

# ---------------------------------------------------------------- commands

cleanup_up() {
	local rc=$?
	trap - EXIT INT TERM
	set +e
	printf '\n' >&2
	stop_services
	if ((PG_STARTED_HERE)); then stop_private_pg; fi
	rm -f "$RUN/stack.pid"
	say "stopped"
	exit "$rc"
}

cmd_up() {
	prepare_dirs
	refuse_second_up
	stop_leftovers
	build_ppwr
	printf '%s %s\n' "$$" "$0" >"$RUN/stack.pid"
	trap cleanup_up EXIT
	trap 'exit 130' INT
	# SIGTERM is how `make stop` asks this script to finish: a normal end.
	trap 'exit 0' TERM

	start_backing_services

	local log="$LOGS/ppwr.log" base="http://$HTTP_ADDR"
	say "starting ppwr dev on $HTTP_ADDR"
	start_service ppwr -- "$PPWR" dev
	local pid=${STARTED_PIDS[-1]}
	wait_until "ppwr dev (GET $base/readyz)" 180 "$log" "$pid" \
		curl -fsS -o /dev/null --max-time 2 "$base/readyz"

	local key
	key=$(bootstrap_key "$base")

	cat <<EOF

  ppwr is running.

    API           $base/api/v1
    Support       http://$SUPPORT_ADDR  (token: bin/ppwr admin support-token create --name NAME)
    Temporal UI   http://${TEMPORAL_ADDRESS%:*}:$TEMPORAL_UI_PORT
    S3            $S3_ENDPOINT  (bucket $S3_BUCKET, files under .data/s3)
    Mail          $SMTP_URL  (messages as .eml under .data/mail)
    Replies       smtp://$INBOUND_SMTP_ADDR  (mail to ${MAIL_REPLY_ADDRESS%@*}+<token>@${MAIL_REPLY_ADDRESS#*@})
    ClamAV        $CLAMD_ADDRESS  (the project's test signatures only)
    Logs          .data/logs/*.log
    API key       $key

    curl -H "Authorization: Bearer $key" $base/api/v1/organizations

  Ctrl-C (or 'make stop' in another terminal) stops everything started here.

EOF

	# Whichever child ends first ends the stack: a dead service is reported
	# rather than left half-running.
	while :; do
		wait -n || true
		local name
		for name in "${SERVICES[@]}"; do
			if [[ -f $RUN/$name.pid ]] && ! service_pid "$name" >/dev/null; then
				die_log "$name exited unexpectedly" "$LOGS/$name.log"
			fi
		done
	done
}

# bootstrap_key reuses the key from an earlier run while it still works, so
# restarts do not pile up organizations; otherwise it bootstraps a new one.
bootstrap_key() {
	local base=$1 saved="$DATA/bootstrap.json" key=""
	if [[ -s $saved ]]; then
		key=$(json_field apiKey <"$saved")
		if [[ -n $key ]] && [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 5 \
			-H "Authorization: Bearer $key" "$base/api/v1/organizations") == 200 ]]; then
			say "reusing the API key from .data/bootstrap.json"
			printf '%s' "$key"
			return
		fi
	fi
	say "bootstrapping an organization, owner and API key"
	local out
	out=$("$PPWR" admin bootstrap --json 2>>"$LOGS/ppwr.log") ||
		die_log "ppwr admin bootstrap --json failed" "$LOGS/ppwr.log"
	key=$(printf '%s' "$out" | json_field apiKey)
	[[ -n $key ]] || die "ppwr admin bootstrap --json printed no apiKey: $out"
	(
		umask 077
		printf '%s\n' "$out" >"$saved"
	)
	printf '%s' "$key"
}

json_field() {
	if command -v jq >/dev/null; then
		jq -r --arg f "$1" '.[$f] // empty'
	else
		sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"\\([^\"]*\\)\".*/\\1/p"
	fi
}

cmd_services() {
	prepare_dirs
	refuse_second_up
	stop_leftovers
	# Clean up a half-started stack on failure; on success leave it running.
	trap 'rc=$?; if ((rc)); then set +e; stop_services; if ((PG_STARTED_HERE)); then stop_private_pg; fi; fi' EXIT
	start_backing_services
	cat <<EOF

  Backing services are running in the background ('make stop' stops them):
    PostgreSQL    $DATABASE_URL
    Temporal      $TEMPORAL_ADDRESS  (UI http://${TEMPORAL_ADDRESS%:*}:$TEMPORAL_UI_PORT)
    S3            $S3_ENDPOINT
    SMTP          $SMTP_URL
    ClamAV        $CLAMD_ADDRESS
  Start the application with:  go run ./cmd/ppwr dev

EOF
}

cmd_down() {
	mkdir -p "$RUN"
	local pid exe
	# A foreground `up` cleans up after itself on SIGTERM; let it, so the two
	# do not race to stop the same processes.
	if [[ -f $RUN/stack.pid ]] && read -r pid exe <"$RUN/stack.pid" && alive "$pid" &&
		grep -q "stack.sh" "/proc/$pid/cmdline" 2>/dev/null; then
		say "asking the running stack (pid $pid) to stop"
		kill -TERM "$pid" 2>/dev/null || true
		local deadline=$((SECONDS + 90))
		while alive "$pid" && ((SECONDS < deadline)); do sleep 0.2; done
		alive "$pid" && say "warning: the stack script (pid $pid) is still running after 90s"
	fi
	rm -f "$RUN/stack.pid"
	stop_services
	stop_private_pg
	say "stopped"
}

cmd_status() {
	local name pid
	for name in "${SERVICES[@]}"; do
		if pid=$(service_pid "$name"); then
			printf '%-10s running (pid %s)\n' "$name" "$pid"
		else
			printf '%-10s stopped\n' "$name"
		fi
	done
	if private_pg_running; then
		printf '%-10s private cluster running (%s)\n' postgres "${PGDATA_DIR#"$ROOT"/}"
	elif pg_answers; then
		printf '%-10s %s:%s answers (not managed here)\n' postgres "$PG_HOST" "$PG_PORT"
	else
		printf '%-10s stopped\n' postgres
	fi
}

# with_test_pg COMMAND... runs COMMAND with TEST_DATABASE_URL pointing at an
# admin database (the test harness creates one database per package from it)
# and stops the private cluster afterwards if it was started for this.
with_test_pg() {
	export PPWR_TEMPORAL_BIN="$BIN/temporal" PPWR_VERSITYGW_BIN="$BIN/versitygw" PPWR_CLAMD_BIN="$CLAMD_BIN" \
		PPWR_CHROMIUM_BIN="$CHROMIUM_BIN" PPWR_AXE_JS="$AXE_JS"
	if [[ -n $USER_TEST_DATABASE_URL ]]; then
		say "using TEST_DATABASE_URL from the environment"
		export TEST_DATABASE_URL="$USER_TEST_DATABASE_URL"
		"$@"
		return
	fi
	mkdir -p "$LOGS"
	trap 'rc=$?; set +e; if ((PG_STARTED_HERE)); then stop_private_pg; fi; exit $rc' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	ensure_pg
	export TEST_DATABASE_URL="postgres://postgres@$PG_HOST:$PG_PORT/postgres?sslmode=disable"
	say "TEST_DATABASE_URL=$TEST_DATABASE_URL"
	"$@"
}

run_checks() {
	say "gofmt -l"
	local unformatted
	unformatted=$(find . \( -path ./.git -o -path ./.data -o -path ./bin -o -name testdata -o -name node_modules \) -prune \
		-o -name '*.go' -type f -print0 | xargs -0 -r gofmt -l)
	if [[ -n $unformatted ]]; then
		printf '%s\n' "$unformatted" >&2
		die "these files are not gofmt-formatted (gofmt -w FILE fixes them)"
	fi
	say "go vet ./..."
	go vet ./...
	say "go test -race -count=1 -timeout 30m ${GOTESTFLAGS:-} ./..."
	# shellcheck disable=SC2086 # GOTESTFLAGS is a list of flags on purpose
	go test -race -count=1 -timeout 30m ${GOTESTFLAGS:-} ./...
	# A few seconds of coverage-guided fuzzing of the write pipeline on top
	# of its seeds (which the line above ran); PPWR_FUZZTIME=100000x for
	# longer. A count of runs, not a duration: with a duration, Go's fuzz
	# coordinator (before go1.27, golang/go#75804) can report its own
	# deadline as a failure, "context deadline exceeded" with no failing
	# input, on a loaded machine.
	say "go test -fuzz FuzzWrites -fuzztime ${PPWR_FUZZTIME:-3000x} ./api"
	go test -run '^$' -fuzz FuzzWrites -fuzztime "${PPWR_FUZZTIME:-3000x}" -parallel 2 ./api
}

# The tests start private clamds of their own; they need only the binary,
# pdftotext to read generated PDFs back, openpyxl to read XLSX exports, and
# Chromium with axe-core to drive and check web pages.
cmd_test() {
	require_tools
	ensure_clamd
	ensure_poppler
	ensure_openpyxl
	ensure_chromium
	ensure_axe
	with_test_pg run_checks
}

# The import scenarios run the worker as a process of its own (so its
# memory is measurable), from this binary.
cmd_bench() {
	require_tools
	ensure_clamd
	build_ppwr
	export PPWR_BIN="$PPWR"
	with_test_pg go run ./cmd/ppwr-bench "$@"
}

cmd_pg() {
	mkdir -p "$LOGS"
	ensure_pg
	printf 'postgres://postgres@%s:%s/postgres?sslmode=disable\n' "$PG_HOST" "$PG_PORT"
}

cmd_clean_data() {
	[[ -n $ROOT && $DATA == "$ROOT/.data" ]] || die "refusing to delete: unexpected data path $DATA"
	cmd_down
	pg_paths
	if [[ $PGDATA_DIR == /var/tmp/ppwr-postgres-*/data ]]; then
		say "deleting $(dirname "$PGDATA_DIR")"
		rm -rf -- "$(dirname "$PGDATA_DIR")"
	fi
	say "deleting .data (database, Temporal history, objects, mail, logs)"
	rm -rf -- "$DATA"
}

usage() { sed -n '2,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }

main() {
	local cmd=${1:-help}
	shift || true
	case $cmd in
	up) cmd_up ;;
	services) cmd_services ;;
	down | stop) cmd_down ;;
	status) cmd_status ;;
	pg) cmd_pg ;;
	test) cmd_test ;;
	bench) cmd_bench "$@" ;;
	build)
		build_ppwr
		build_sink
		;;
	clean-data) cmd_clean_data ;;
	help | -h | --help) usage ;;
	*)
		usage >&2
		exit 2
		;;
	esac
}

main "$@"
