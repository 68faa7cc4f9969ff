CREATE TABLE "message_claims" (
	"message_id" uuid PRIMARY KEY NOT NULL,
	"lock_token" uuid NOT NULL,
	"locked_until" timestamp with time zone NOT NULL,
	"attempts" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_lock_only_while_sending";--> statement-breakpoint
DROP INDEX "messages_lock_expiry_idx";--> statement-breakpoint
ALTER TABLE "message_claims" ADD CONSTRAINT "message_claims_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "message_claims_locked_until_idx" ON "message_claims" USING btree ("locked_until");--> statement-breakpoint
-- The claims held at upgrade move to the narrow table; their messages read `queued` with a claim
-- (shown as `sending`), as every claim from now on. A claim with no token left (none should be) is
-- simply queued: the sweeper republishes it.
INSERT INTO "message_claims" ("message_id", "lock_token", "locked_until", "attempts")
  SELECT "id", "lock_token", coalesce("locked_until", now()), greatest("attempts", 1)
  FROM "messages" WHERE "status" = 'sending' AND "lock_token" IS NOT NULL;--> statement-breakpoint
UPDATE "messages" SET "attempts" = greatest("attempts" - 1, 0) WHERE "status" = 'sending' AND "lock_token" IS NOT NULL;--> statement-breakpoint
UPDATE "messages" SET "status" = 'queued' WHERE "status" = 'sending';--> statement-breakpoint
ALTER TABLE "messages" DROP COLUMN "lock_token";--> statement-breakpoint
ALTER TABLE "messages" DROP COLUMN "locked_until";