-- The boot writer role (docs/fleet.md "The boot writer role"): a PostgreSQL role for the
-- hosts' `hugetune verify --fleet-db` (and the verify unit's HUGETUNE_FLEET_DB) that may add boot
-- records to a hugetune fleet database and do nothing else: it reads no run, no host and no other
-- host's boot, and updates and deletes nothing. It may read schema_info, the schema's version
-- number, so that a host finds out that the database is too old for boot records.
--
-- Run it as the database's owner, once the database is at schema version 9 or later (any
-- `hugetune fleet` command of this version brings it there), then give the role a password in
-- the hosts' password file (~/.pgpass, or PGPASSFILE in /etc/default/hugetune), never in the URL:
--     psql -v ON_ERROR_STOP=1 -f boot-writer-role.sql "postgresql://owner@server/fleet"
--     psql -c "ALTER ROLE hugetune_boot PASSWORD '...'" "postgresql://owner@server/fleet"
-- Another name: psql -v role=NAME ...
\if :{?role}
\else
\set role hugetune_boot
\endif
SELECT NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'role') AS create_role \gset
\if :create_role
CREATE ROLE :"role" LOGIN;
\endif
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM :"role";
GRANT USAGE ON SCHEMA public TO :"role";
GRANT SELECT ON schema_info TO :"role";
GRANT INSERT ON boot_records TO :"role";
