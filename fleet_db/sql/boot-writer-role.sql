-- The boot writer role (docs/fleet.md "The boot writer role"): a PostgreSQL role for the
-- hosts' `hugetune verify --fleet-db` (and the verify unit's HUGETUNE_FLEET_DB) that may add boot
-- records to a hugetune fleet database and do nothing else: it reads no run, no host and no other
-- host's boot, and updates and deletes nothing. It adds a record only through the function
-- hugetune_add_boot_record, which the database's owner made (schema version 13) and which holds
-- the record to the rules `fleet ingest` applies (boot_records' CHECK constraints); it has no
-- right on boot_records itself, so it can neither insert a row the rules refuse nor choose ids.
-- It may read schema_info, the schema's version number, so that a host finds out that the
-- database is too old for it.
--
-- Run it as the database's owner, once the database is at schema version 13 or later (any
-- `hugetune fleet` command of this version brings it there), then give the role a password in
-- the hosts' password file (~/.pgpass, or PGPASSFILE in /etc/default/hugetune), never in the URL:
--     psql -v ON_ERROR_STOP=1 -f boot-writer-role.sql "postgresql://owner@server/fleet"
--     psql -c "ALTER ROLE hugetune_boot PASSWORD '...'" "postgresql://owner@server/fleet"
-- Another name: psql -v role=NAME ...
\if :{?role}
\else
\set role hugetune_boot
\endif
SELECT EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'hugetune_add_boot_record') AS has_function \gset
\if :has_function
\else
\echo 'boot-writer-role.sql: this database has no hugetune_add_boot_record: run any hugetune fleet command of version 13 or later on it as its owner first'
\quit
\endif
SELECT NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'role') AS create_role \gset
\if :create_role
SELECT rolcreaterole OR rolsuper AS may_create, current_user AS me FROM pg_roles
    WHERE rolname = current_user \gset
\if :may_create
CREATE ROLE :"role" LOGIN;
\else
\echo 'boot-writer-role.sql: the role' :'role' 'does not exist and' :'me' 'may not create roles (CREATEROLE): create it as a superuser (CREATE ROLE' :"role" 'LOGIN), then run this file again'
\quit
\endif
\endif
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM :"role";
GRANT USAGE ON SCHEMA public TO :"role";
GRANT SELECT ON schema_info TO :"role";
GRANT EXECUTE ON FUNCTION hugetune_add_boot_record(TEXT, TEXT, TEXT, TEXT, TEXT, BIGINT, BIGINT,
    INTEGER, BIGINT, INTEGER, TEXT, INTEGER, INTEGER, INTEGER, TEXT, TEXT) TO :"role";
