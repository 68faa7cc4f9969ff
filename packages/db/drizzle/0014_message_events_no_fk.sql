-- Events are written three times per mail and more: the foreign key's check (a locking lookup of
-- `tenants` per row) goes, and a trigger on `tenants` deletes a removed tenant's events instead, as
-- the cascade did. It costs nothing until a tenant is deleted.
ALTER TABLE "message_events" DROP CONSTRAINT "message_events_tenant_id_tenants_id_fk";--> statement-breakpoint
CREATE FUNCTION "delete_tenant_message_events"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "message_events" WHERE "tenant_id" = OLD."id";
  RETURN OLD;
END
$$;--> statement-breakpoint
CREATE TRIGGER "tenants_delete_message_events" AFTER DELETE ON "tenants"
  FOR EACH ROW EXECUTE FUNCTION "delete_tenant_message_events"();
