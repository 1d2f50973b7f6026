# Sourced by test.sh: make a PostgreSQL reachable for the test suite and export WEBGAUGE_TEST_PG_URL.
# Order: an URL the caller gives; a server already on 127.0.0.1:5432; the machine's own cluster, started;
# Debian's postgresql package, installed and started. Says which one it used.

pg_ready() {
  node -e '
    const pg = require("pg");
    const c = new pg.Client({ connectionString: process.argv[1], connectionTimeoutMillis: 2000 });
    c.connect().then(() => c.end()).then(() => process.exit(0), () => process.exit(1));
  ' "$1" 2>/dev/null
}

ensure_postgres() {
  local url="${WEBGAUGE_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
  if pg_ready "$url"; then
    echo "[webgauge test] PostgreSQL: using the server at ${url%%\?*}"
    export WEBGAUGE_TEST_PG_URL="$url"; return
  fi
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    echo "[webgauge test] PostgreSQL: none reachable; installing Debian's postgresql package"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq && $sudo apt-get install -y -qq postgresql >/dev/null
  fi
  local version; version=$(ls /etc/postgresql | sort -V | tail -n1)
  echo "[webgauge test] PostgreSQL: starting the local cluster $version/main"
  $sudo pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  # Trust local TCP connections for the postgres user only when the cluster asks for a password we lack.
  for _ in $(seq 1 30); do pg_ready "$url" && break; sleep 1; done
  if ! pg_ready "$url"; then
    url="postgres:///postgres?host=/var/run/postgresql&user=postgres"
    pg_ready "$url" || { echo "[webgauge test] PostgreSQL could not be reached; set WEBGAUGE_TEST_PG_URL" >&2; exit 1; }
  fi
  echo "[webgauge test] PostgreSQL: using ${url%%\?*}"
  export WEBGAUGE_TEST_PG_URL="$url"
}
