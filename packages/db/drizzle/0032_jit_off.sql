-- PostgreSQL's JIT compiler off for Fairlane's database (its sessions from now on). Fairlane's
-- statements are short OLTP ones whose estimated cost follows the table's statistics, not the rows
-- they touch: beside a backlog of 1,000,000 pending rows the pacer's release (a LIMIT taken from an
-- array: the planner assumes a tenth of the tenant's rows) was estimated at 1.36 million and
-- JIT-compiled with inlining and optimisation on every execution, 240 ms of a core each time for a
-- statement that runs in 1 ms (`pnpm bench:throughput --backlog 1000000`: PostgreSQL 1.94 ms of CPU
-- per email instead of 0.27). A role that does not own the database cannot change its defaults: the
-- migration then warns and goes on, and the README's Operations section says what to set instead.
DO $$
BEGIN
  EXECUTE format('ALTER DATABASE %I SET jit = off', current_database());
EXCEPTION WHEN insufficient_privilege THEN
  RAISE WARNING 'fairlane: could not turn JIT off for database % (%); set jit = off for it, or for the role (ALTER ROLE ... SET jit = off), as the README''s Operations section explains', current_database(), SQLERRM;
END
$$;
