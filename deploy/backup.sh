#!/bin/sh
# Scheduled logical backups of the Chinchi database (docs/operations-deploy.md "Backups").
#   backup.sh          one backup now, then prune (cron on the host, or `docker compose run --rm backup backup.sh`)
#   backup.sh --loop   one backup every BACKUP_INTERVAL_SECONDS (compose's `backup` service)
# DATABASE_URL: the database (postgres://user:password@host:port/name); BACKUP_DIR (default /backups): where;
# BACKUP_KEEP (default 14): how many dumps are kept, the newest. Each dump is `pg_dump --format=custom`
# (compressed; one consistent snapshot while the service keeps writing), written as .partial and renamed
# when complete, so a dump named chinchi-<UTC time>.dump is always whole. Every line printed is JSON.
set -eu

: "${DATABASE_URL:?DATABASE_URL is required}"
BACKUP_DIR="${BACKUP_DIR:-/backups}"
BACKUP_KEEP="${BACKUP_KEEP:-14}"
BACKUP_INTERVAL_SECONDS="${BACKUP_INTERVAL_SECONDS:-86400}"

say() {  # level, message (no quotes or backslashes in messages)
  printf '{"time": "%s", "level": "%s", "logger": "chinchi.backup", "message": "%s"}\n' \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$1" "$2"
}

backup_once() {
  mkdir -p "$BACKUP_DIR"
  name="chinchi-$(date -u +%Y%m%dT%H%M%SZ).dump"
  started=$(date +%s)
  if pg_dump --format=custom --no-owner --file="$BACKUP_DIR/$name.partial" --dbname="$DATABASE_URL" 2>"$BACKUP_DIR/.error"; then
    mv "$BACKUP_DIR/$name.partial" "$BACKUP_DIR/$name"
    say INFO "backup $name written: $(wc -c <"$BACKUP_DIR/$name") bytes in $(( $(date +%s) - started )) s"
  else
    rm -f "$BACKUP_DIR/$name.partial"
    say ERROR "backup $name failed: $(tr -c '[:print:]' ' ' <"$BACKUP_DIR/.error" | tr '"\\' '  ')"
    rm -f "$BACKUP_DIR/.error"
    return 1
  fi
  rm -f "$BACKUP_DIR/.error"
  # Keep the newest BACKUP_KEEP dumps (names sort by time).
  ls -1 "$BACKUP_DIR" | grep -E '^chinchi-[0-9TZ]+\.dump$' | sort -r | tail -n "+$((BACKUP_KEEP + 1))" |
    while read -r old; do rm -f "$BACKUP_DIR/$old"; say INFO "backup $old removed (keeping $BACKUP_KEEP)"; done
}

if [ "${1:-}" = "--loop" ]; then
  say INFO "backups every $BACKUP_INTERVAL_SECONDS s into $BACKUP_DIR, keeping $BACKUP_KEEP"
  while :; do
    backup_once || true
    sleep "$BACKUP_INTERVAL_SECONDS"
  done
else
  backup_once
fi
