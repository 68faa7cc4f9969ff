-- One btree on the hot path instead of two: the timeline's (tenant_id, message_id, id) becomes the
-- primary key, and the key on `id` alone goes (retention deletes by row address, nothing looks events
-- up by id alone).
ALTER TABLE "message_events" DROP CONSTRAINT "message_events_pkey";--> statement-breakpoint
DROP INDEX "message_events_tenant_message_idx";--> statement-breakpoint
ALTER TABLE "message_events" ADD CONSTRAINT "message_events_pk" PRIMARY KEY("tenant_id","message_id","id");
