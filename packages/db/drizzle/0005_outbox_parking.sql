DROP INDEX "outbox_unpublished_idx";--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "park_key" text;--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "parked_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "outbox_parked_idx" ON "outbox" USING btree ("parked_until","id") WHERE "outbox"."published_at" is null and "outbox"."parked_until" is not null;--> statement-breakpoint
CREATE INDEX "outbox_unpublished_idx" ON "outbox" USING btree ("id") WHERE "outbox"."published_at" is null and "outbox"."parked_until" is null;