#!/bin/sh
# Run once by the postgres image, as its superuser, when the data directory is empty
# (/docker-entrypoint-initdb.d): the role Guildhall connects as, and the database it owns.
# Owning the database is all its migrations need: they create the tables and the extensions of
# group search (pg_trgm, unaccent, btree_gin), which PostgreSQL 13 and newer trust to a database
# owner. The role may do nothing else: no superuser, no roles, no databases, no replication.
#
# GUILDHALL_DB_PASSWORD (docker/postgres.env) is its password; GUILDHALL_DB_USER and
# GUILDHALL_DB_NAME (both `guildhall` unless set) name the role and the database.
set -e
: "${GUILDHALL_DB_PASSWORD:?set GUILDHALL_DB_PASSWORD in docker/postgres.env: the password of the role Guildhall connects as}"

# The values reach SQL as psql variables, quoted by psql (:"name" and :'literal'), never pasted in.
psql -v ON_ERROR_STOP=1 --no-psqlrc --quiet --username "${POSTGRES_USER:-postgres}" --dbname postgres \
  -v role="${GUILDHALL_DB_USER:-guildhall}" \
  -v db="${GUILDHALL_DB_NAME:-guildhall}" \
  -v password="$GUILDHALL_DB_PASSWORD" <<'SQL'
CREATE ROLE :"role" LOGIN NOSUPERUSER NOCREATEROLE NOCREATEDB NOREPLICATION NOBYPASSRLS PASSWORD :'password';
CREATE DATABASE :"db" OWNER :"role";
-- Only the owner (and the superuser) may connect to it or create temporary tables in it.
REVOKE ALL ON DATABASE :"db" FROM PUBLIC;
SQL
