CREATE SEQUENCE "public"."bulk_backlog_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "bulk_backlog_tenants" (
	"tenant_id" uuid NOT NULL,
	"seq" bigint DEFAULT nextval('bulk_backlog_seq') NOT NULL,
	"changed_xid" xid8 DEFAULT pg_current_xact_id() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bulk_backlog_tenants_pk" PRIMARY KEY("tenant_id")
);
--> statement-breakpoint
ALTER TABLE "bulk_backlog_tenants" ADD CONSTRAINT "bulk_backlog_tenants_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bulk_backlog_tenants_seq_idx" ON "bulk_backlog_tenants" USING btree ("seq");--> statement-breakpoint
CREATE INDEX "bulk_backlog_tenants_changed_xid_idx" ON "bulk_backlog_tenants" USING btree ("changed_xid");--> statement-breakpoint
-- The bulk pacer's active set (bulk_backlog_tenants), kept by triggers rather than by the writers:
-- rows become pending bulk mail in many statements (campaign dispatch, the scheduled releaser, the
-- pacer giving back a release, dead-letter replay, restore, the sweeper…) and a writer that forgot
-- its tenant would leave that tenant's mail unsent for good; here no writer, present or future, can.
--
-- Stamping a tenant (a fresh seq and xid) holds its row's lock until the writing transaction
-- commits: the pacer's delete of an emptied tenant (`seq` unchanged, no pending row left, SKIP
-- LOCKED) then either skips the locked row or sees the new seq, and never drops a tenant whose rows
-- are being written at that moment. A transaction stamps a tenant once (the `changed_xid` test):
-- its later statements find the row already stamped and locked by it.
CREATE FUNCTION "bulk_backlog_stamp"(tenant_ids uuid[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO "bulk_backlog_tenants" (tenant_id)
  -- In id order, so two transactions stamping the same tenants lock them in the same order.
  SELECT DISTINCT t FROM unnest(tenant_ids) t ORDER BY t
  ON CONFLICT (tenant_id) DO UPDATE
    SET seq = nextval('bulk_backlog_seq'), changed_xid = pg_current_xact_id()
    WHERE "bulk_backlog_tenants".changed_xid <> pg_current_xact_id();
$$;--> statement-breakpoint
-- Inserts (campaign dispatch: 500 rows a statement) once per statement, with a transition table.
CREATE FUNCTION "bulk_backlog_from_inserted_messages"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "bulk_backlog_stamp"(array(
    SELECT DISTINCT n.tenant_id FROM new_rows n WHERE n.status = 'pending' AND n.lane = 'bulk'))
  WHERE EXISTS (SELECT 1 FROM new_rows n WHERE n.status = 'pending' AND n.lane = 'bulk');
  RETURN NULL;
END
$$;--> statement-breakpoint
-- Updates per row, but only rows that BECOME pending bulk reach the function: the WHEN clause is
-- checked without calling it, so the send path's updates (queued → sending → sent, hundreds a
-- statement) cost nothing here and capture no transition table.
CREATE FUNCTION "bulk_backlog_from_updated_message"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "bulk_backlog_stamp"(array[NEW.tenant_id]);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "messages_bulk_backlog_insert" AFTER INSERT ON "messages"
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "bulk_backlog_from_inserted_messages"();--> statement-breakpoint
CREATE TRIGGER "messages_bulk_backlog_update" AFTER UPDATE OF status, lane ON "messages"
  FOR EACH ROW
  WHEN (NEW.status = 'pending' AND NEW.lane = 'bulk'
    AND (OLD.status IS DISTINCT FROM NEW.status OR OLD.lane IS DISTINCT FROM NEW.lane))
  EXECUTE FUNCTION "bulk_backlog_from_updated_message"();--> statement-breakpoint
-- The backlog already waiting when this migration runs.
INSERT INTO "bulk_backlog_tenants" (tenant_id)
SELECT DISTINCT tenant_id FROM "messages" WHERE status = 'pending' AND lane = 'bulk'
ON CONFLICT (tenant_id) DO NOTHING;
